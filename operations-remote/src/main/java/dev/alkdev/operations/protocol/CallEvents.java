package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes {@link CallEvent}s as the protocol's JSON (UTF-8). Reading checks every field; a
 * message that is not a valid event raises a {@link CallError} with code PROTOCOL_ERROR whose
 * {@code details} carry the {@code requestId} and {@code replyTo} when they could be read, so the
 * receiver can answer the sender instead of dropping the message. docs/protocol.md is the
 * specification; {@link #eventSchema()} is its JSON Schema.
 */
public final class CallEvents {
  /** The protocol version this library writes and reads. */
  public static final int PROTOCOL_VERSION = 1;

  /** The default cap on one message: 1 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

  /**
   * The deepest an event may nest, counting the event object itself ({@code {"input": {}}} is 2
   * deep). Both reading and writing enforce it, so what one side writes the other can read.
   */
  public static final int MAX_NESTING_DEPTH = 256;

  /** The most characters of an identity's subject (Unicode code points). */
  public static final int MAX_SUBJECT_LENGTH = 256;

  /** The most scopes an identity may carry. */
  public static final int MAX_SCOPES = 1024;

  /**
   * How much of a message too large to read is scanned for its {@code requestId} and {@code
   * replyTo}, so that the sender can still be told. Writers put those fields first.
   */
  static final int SALVAGE_BYTES = 4096;

  private static final String SCHEMA_RESOURCE =
      "/dev/alkdev/operations/protocol/call-events.schema.json";

  private CallEvents() {}

  /**
   * The JSON Schema (draft 2020-12) of every event, with a {@code $defs} entry per event type
   * ({@code CallRequested}, {@code CallResponded}, {@code CallError}, {@code CallCompleted}, {@code
   * CallAborted}, {@code CallDemand}, {@code CallAlive}) joined by {@code oneOf} on {@code type},
   * and the response envelope's definitions for {@code call.responded.output}. Everything {@link
   * #encode} writes validates; it accepts what {@link #decode} accepts, except what a schema cannot
   * say (duplicate names, sizes in bytes, nesting). Compiled once, on first use.
   */
  public static Schema eventSchema() {
    return SchemaHolder.SCHEMA;
  }

  /**
   * The event as its JSON object. The fields a receiver needs to answer ({@code v}, {@code type},
   * {@code requestId}, {@code replyTo}) come first and the payload last, so that a receiver can
   * still read them from a message it cannot read whole (too large, too deep).
   */
  public static ObjectNode toJson(CallEvent event) {
    return EventWriter.toJson(event);
  }

  /**
   * The event as UTF-8 JSON bytes, what {@link #toJson} builds, written without the tree.
   *
   * @throws CallError RESOURCE_EXHAUSTED (not retryable) if the event nests deeper than {@link
   *     #MAX_NESTING_DEPTH}: no receiver would read it
   */
  public static byte[] encode(CallEvent event) {
    return EventWriter.encode(event);
  }

  /**
   * The {@code call.error} event for a failure: the error object of {@link CallError#toJson()}
   * (code, message, retryable and details, nothing else).
   */
  public static CallEvent.Failed failed(String requestId, CallError error) {
    return new CallEvent.Failed(
        requestId,
        error.code(),
        error.getMessage(),
        error.retryable(),
        Optional.ofNullable(error.toJson().get("details")));
  }

  /**
   * The {@link CallError} a caller raises for a {@code call.error} event. The schema errors in the
   * details of an INVALID_INPUT become its {@link CallError#validationErrors()} again.
   */
  public static CallError toCallError(CallEvent.Failed failed) {
    CallError.Builder builder =
        CallError.builder(failed.code(), failed.message()).retryable(failed.retryable());
    failed.details().ifPresent(builder::details);
    if (failed.code() == ErrorCode.INVALID_INPUT) {
      failed.details().map(CallEvents::schemaErrors).ifPresent(builder::validationErrors);
    }
    return builder.build();
  }

  private static List<SchemaError> schemaErrors(JsonNode details) {
    JsonNode errors = details.get("errors");
    List<SchemaError> list = new ArrayList<>();
    if (errors == null || !errors.isArray()) {
      return list;
    }
    for (JsonNode error : errors) {
      JsonNode path = error.get("instancePath");
      JsonNode keyword = error.get("keyword");
      JsonNode message = error.get("message");
      if (path != null && path.isString() && message != null && message.isString()) {
        list.add(
            new SchemaError(
                path.asString(),
                keyword != null && keyword.isString() ? keyword.asString() : "",
                message.asString()));
      }
    }
    return list;
  }

  /**
   * Reads one event from UTF-8 JSON bytes.
   *
   * @throws CallError PROTOCOL_ERROR if the bytes are not a valid event (too large, not UTF-8, not
   *     JSON, nested deeper than {@link #MAX_NESTING_DEPTH}, a duplicate name, a missing or wrong
   *     field, an unknown type or another protocol version); its details hold the {@code requestId}
   *     and {@code replyTo} when they could be read, and a JSON {@code pointer} to the wrong field
   *     when there is one
   */
  public static CallEvent decode(byte[] bytes, int maxMessageBytes) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.length > maxMessageBytes) {
      throw EventReader.malformed(
          "message is " + bytes.length + " bytes, more than the limit of " + maxMessageBytes,
          null,
          EventReader.salvage(bytes, Math.min(bytes.length, SALVAGE_BYTES)));
    }
    if (bytes.length >= 2 && (bytes[0] == 0 || bytes[1] == 0 || (bytes[0] & 0xFE) == 0xFE)) {
      // JSON text starts with an ASCII character, which UTF-16 and UTF-32 pad with zero bytes, or
      // with their byte order marks (FE FF, FF FE). Jackson would guess those encodings; the
      // protocol is UTF-8 only.
      throw EventReader.malformed(
          "message is not UTF-8 (it looks like UTF-16 or UTF-32)", null, null);
    }
    try {
      CallEvent event = StreamingEventReader.decodeStreaming(bytes);
      if (event != null) {
        return event;
      }
    } catch (RuntimeException e) {
      // Not a valid event: the tree reader below finds the same problem and says what it is.
    }
    return EventReader.decodeTree(bytes);
  }

  /** Reads one event from its JSON object. */
  public static CallEvent fromJson(JsonNode json) {
    return EventReader.fromJson(json);
  }

  /** The request id a PROTOCOL_ERROR from {@link #decode} could read, if any. */
  public static Optional<String> readableRequestId(CallError error) {
    return error
        .details()
        .map(d -> d.get("requestId"))
        .filter(JsonNode::isString)
        .map(JsonNode::asString);
  }

  /** The reply topic a PROTOCOL_ERROR from {@link #decode} could read, if any. */
  public static Optional<String> readableReplyTo(CallError error) {
    return error
        .details()
        .map(d -> d.get("replyTo"))
        .filter(JsonNode::isString)
        .map(JsonNode::asString);
  }

  /**
   * Whether {@code topic} may be used as a reply topic: 1 to 256 ASCII letters, digits, '_', '.',
   * ':', '/', '@' or '-' (no spaces, no wildcards: NATS '*' and '>', Redis glob characters).
   */
  public static boolean isValidTopic(String topic) {
    return WireIds.isValidTopic(topic);
  }

  /**
   * Whether {@code requestId} is one the protocol accepts: 1 to 128 ASCII letters, digits, '_',
   * '.', ':' or '-', characters that need no escaping anywhere (UUIDs and hex fit).
   */
  public static boolean isValidRequestId(String requestId) {
    return WireIds.isValidRequestId(requestId);
  }

  /** Compiles the event schema on first use only. */
  private static final class SchemaHolder {
    static final Schema SCHEMA = Schema.fromJson(load());

    private static JsonNode load() {
      try (InputStream in = CallEvents.class.getResourceAsStream(SCHEMA_RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException("Missing resource " + SCHEMA_RESOURCE + " (broken jar?)");
        }
        return Json.mapper().readTree(in);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + SCHEMA_RESOURCE, e);
      }
    }
  }
}
