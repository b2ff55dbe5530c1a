package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.alkdev.operations.envelope.internal.WireJson;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.node.ObjectNode;

/**
 * What an HTTP envelope carries about the one Server-Sent Event it wraps (the seeds' open {@code
 * SSEResponseMeta} question, answered in decision D15 of {@code docs/decisions/}): one envelope per
 * event, source {@code http}, this block in {@link HttpResponseMeta#event()}. On the wire it is the
 * field {@code "event"} of the HTTP meta: {@code {"type":"message","id":"7","retry":1500}}, the
 * last two only when present.
 *
 * @param type the event's type, {@code "message"} when the stream gave none
 * @param id the last event id in effect for the event, when there was one
 * @param retry the reconnection time in milliseconds the event's block set, if it set one
 */
public record SseEventMeta(String type, Optional<String> id, OptionalLong retry) {

  public SseEventMeta {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(retry, "retry");
    if (type.isEmpty()) {
      throw new IllegalArgumentException(
          "type must not be empty (the default type is \"message\")");
    }
    if (retry.isPresent() && retry.getAsLong() < 0) {
      throw new IllegalArgumentException("retry must not be negative, was " + retry.getAsLong());
    }
  }

  /** The meta of a {@code message} event without id or retry. */
  public static SseEventMeta message() {
    return new SseEventMeta("message", Optional.empty(), OptionalLong.empty());
  }

  /** The wire form. */
  @JsonValue
  public ObjectNode toJson() {
    ObjectNode json = WireJson.object();
    json.put("type", type);
    id.ifPresent(value -> json.put("id", value));
    if (retry.isPresent()) {
      json.put("retry", retry.getAsLong());
    }
    return json;
  }
}
