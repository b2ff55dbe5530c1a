package dev.alkdev.operations.sse;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One dispatched Server-Sent Event.
 *
 * @param type the {@code event} field, {@code "message"} when the event had none
 * @param data the {@code data} lines joined with {@code "\n"}
 * @param id the last event id in effect when the event was dispatched (it persists across events,
 *     as the WHATWG rules say); empty when no id was seen or the last one was empty
 * @param retry the {@code retry} value (milliseconds) given in this event's block, if any
 */
public record SseEvent(String type, String data, Optional<String> id, OptionalLong retry) {

  /** The type of an event without an {@code event} field. */
  public static final String DEFAULT_TYPE = "message";

  public SseEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(retry, "retry");
    if (type.isEmpty()) {
      type = DEFAULT_TYPE;
    }
  }

  /** A {@code message} event with just data. */
  public static SseEvent message(String data) {
    return new SseEvent(DEFAULT_TYPE, data, Optional.empty(), OptionalLong.empty());
  }

  /** This event with type {@code type} (empty means {@code message}). */
  public SseEvent withType(String type) {
    return new SseEvent(type, data, id, retry);
  }

  /** This event with id {@code id}, for a server to write ({@link SseWriter}). */
  public SseEvent withId(String id) {
    return new SseEvent(type, data, Optional.of(id), retry);
  }

  /** This event with the reconnection delay {@code retry}, for a server to write. */
  public SseEvent withRetry(Duration retry) {
    if (retry.isNegative()) {
      throw new IllegalArgumentException("an SSE retry must not be negative, was " + retry);
    }
    return new SseEvent(type, data, id, OptionalLong.of(retry.toMillis()));
  }
}
