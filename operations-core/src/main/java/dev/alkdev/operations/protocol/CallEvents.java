package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.schema.SchemaError;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes {@link CallEvent}s as the protocol's JSON (UTF-8). Reading checks every field; a
 * message that is not a valid event raises a {@link CallError} with code PROTOCOL_ERROR whose
 * {@code details} carry the {@code requestId} and {@code replyTo} when they could be read, so the
 * receiver can answer the sender instead of dropping the message.
 */
public final class CallEvents {
  /** The protocol version this library writes and reads. */
  public static final int PROTOCOL_VERSION = 1;

  /** The default cap on one message: 1 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

  /** Request ids: 1 to 128 characters that need no escaping anywhere (UUIDs and hex fit). */
  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");

  /** Reply topics: no spaces, no wildcards (NATS '*' and '>', Redis glob characters). */
  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9_.:/@-]{1,256}");

  private static final JsonMapper READER =
      Json.boundedMapper(256, Integer.MAX_VALUE); // sizes are checked before parsing

  private CallEvents() {}

  // ------------------------------------------------------------------ writing

  /** The event as its JSON object. */
  public static ObjectNode toJson(CallEvent event) {
    Objects.requireNonNull(event, "event");
    ObjectNode json = Json.nodes().objectNode();
    json.put("v", PROTOCOL_VERSION);
    json.put("type", event.type());
    json.put("requestId", event.requestId());
    if (event instanceof CallEvent.Requested r) {
      json.put("operationId", r.operationId());
      json.set("input", r.input());
      r.parentRequestId().ifPresent(id -> json.put("parentRequestId", id));
      r.identity()
          .ifPresent(
              identity -> {
                ObjectNode who = json.putObject("identity");
                who.put("subject", identity.subject());
                ArrayNode scopes = who.putArray("scopes");
                identity.scopes().stream().sorted().forEach(scopes::add);
              });
      r.deadlineMillis().ifPresent(ms -> json.put("deadlineMs", ms));
      r.replyTo().ifPresent(topic -> json.put("replyTo", topic));
      r.demand().ifPresent(n -> json.put("demand", n));
    } else if (event instanceof CallEvent.Responded r) {
      json.set("output", Envelopes.toJson(r.output()));
    } else if (event instanceof CallEvent.Failed f) {
      ObjectNode error = json.putObject("error");
      error.put("code", f.code().name());
      error.put("message", f.message());
      error.put("retryable", f.retryable());
      f.details().ifPresent(d -> error.set("details", d));
    } else if (event instanceof CallEvent.Aborted a) {
      a.reason().ifPresent(reason -> json.put("reason", reason));
    } else if (event instanceof CallEvent.Demand d) {
      json.put("n", d.n());
    }
    return json;
  }

  /** The event as UTF-8 JSON bytes. */
  public static byte[] encode(CallEvent event) {
    return Json.mapper().writeValueAsBytes(toJson(event));
  }

  /** The {@code call.error} event for a failure; only code, message, retryable and details. */
  public static CallEvent.Failed failed(String requestId, CallError error) {
    return new CallEvent.Failed(
        requestId, error.code(), error.getMessage(), error.retryable(), error.details());
  }

  /**
   * The {@link CallError} a caller raises for a {@code call.error} event; the validation errors of
   * an INVALID_INPUT come back from its details.
   */
  public static CallError toCallError(CallEvent.Failed failed) {
    CallError.Builder builder =
        CallError.builder(failed.code(), failed.message()).retryable(failed.retryable());
    failed.details().ifPresent(builder::details);
    if (failed.code() == ErrorCode.INVALID_INPUT) {
      failed.details().map(CallEvents::validationErrors).ifPresent(builder::validationErrors);
    }
    return builder.build();
  }

  /** The well-formed entries of {@code details.validationErrors}; others are skipped. */
  private static List<SchemaError> validationErrors(JsonNode details) {
    JsonNode list = details.get(CallError.VALIDATION_ERRORS);
    if (list == null || !list.isArray()) {
      return List.of();
    }
    List<SchemaError> errors = new ArrayList<>(list.size());
    for (JsonNode entry : list) {
      JsonNode path = entry.get("instancePath");
      JsonNode keyword = entry.get("keyword");
      JsonNode message = entry.get("message");
      if (path != null
          && path.isString()
          && keyword != null
          && keyword.isString()
          && message != null
          && message.isString()) {
        errors.add(new SchemaError(path.asString(), keyword.asString(), message.asString()));
      }
    }
    return errors;
  }

  // ------------------------------------------------------------------ reading

  /**
   * Reads one event from UTF-8 JSON bytes.
   *
   * @throws CallError PROTOCOL_ERROR if the bytes are not a valid event (too large, not JSON, a
   *     missing or wrong field, an unknown type or a newer protocol version)
   */
  public static CallEvent decode(byte[] bytes, int maxMessageBytes) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.length > maxMessageBytes) {
      throw malformed(
          "message is " + bytes.length + " bytes, more than the limit of " + maxMessageBytes, null);
    }
    JsonNode json;
    try {
      json = READER.readTree(bytes);
    } catch (JacksonException e) {
      throw malformed("message is not valid JSON: " + e.getOriginalMessage(), null);
    }
    return fromJson(json);
  }

  /** Reads one event from its JSON object. */
  public static CallEvent fromJson(JsonNode json) {
    if (json == null || !json.isObject()) {
      throw malformed("an event must be a JSON object", null);
    }
    JsonNode v = json.get("v");
    if (v == null || !v.isIntegralNumber()) {
      throw malformed("\"v\" (the protocol version) is missing or not an integer", json);
    }
    if (v.asInt() != PROTOCOL_VERSION) {
      throw malformed(
          "protocol version " + v + " is not supported (this side speaks " + PROTOCOL_VERSION + ")",
          json);
    }
    String requestId = requestId(json);
    String type = string(json, "type", json);
    switch (type) {
      case "call.requested":
        return requested(json, requestId);
      case "call.responded":
        {
          JsonNode output = json.get("output");
          if (output == null) {
            throw malformed("\"output\" is missing", json);
          }
          ResponseEnvelope<JsonNode> envelope;
          try {
            envelope = Envelopes.fromJson(output);
          } catch (CallError e) {
            throw malformed("\"output\" is not a response envelope: " + e.getMessage(), json);
          }
          return new CallEvent.Responded(requestId, envelope);
        }
      case "call.error":
        return failed(json, requestId);
      case "call.completed":
        return new CallEvent.Completed(requestId);
      case "call.aborted":
        return new CallEvent.Aborted(requestId, optionalString(json, "reason", json));
      case "call.demand":
        {
          JsonNode n = json.get("n");
          if (n == null || !n.isIntegralNumber() || n.asLong() <= 0 || !n.canConvertToLong()) {
            throw malformed("\"n\" must be a positive integer", json);
          }
          return new CallEvent.Demand(requestId, n.asLong());
        }
      default:
        throw malformed("unknown event type \"" + printable(type) + "\"", json);
    }
  }

  private static CallEvent.Requested requested(JsonNode json, String requestId) {
    String operationId = string(json, "operationId", json);
    if (!OperationSpec.isValidId(operationId)) {
      throw malformed("\"operationId\" is not a valid operation id", json);
    }
    JsonNode input = json.get("input");
    Optional<String> parent = optionalString(json, "parentRequestId", json);
    if (parent.isPresent() && !REQUEST_ID.matcher(parent.get()).matches()) {
      throw malformed("\"parentRequestId\" is not a valid request id", json);
    }
    Optional<String> replyTo = optionalString(json, "replyTo", json);
    if (replyTo.isPresent() && !TOPIC.matcher(replyTo.get()).matches()) {
      throw malformed("\"replyTo\" is not a valid topic", json);
    }
    return new CallEvent.Requested(
        requestId,
        operationId,
        input == null ? Json.nodes().nullNode() : input,
        parent,
        identity(json),
        nonNegative(json, "deadlineMs"),
        replyTo,
        positive(json, "demand"));
  }

  private static Optional<Identity> identity(JsonNode json) {
    JsonNode who = json.get("identity");
    if (who == null || who.isNull()) {
      return Optional.empty();
    }
    if (!who.isObject()) {
      throw malformed("\"identity\" must be an object with subject and scopes", json);
    }
    String subject = string(who, "subject", json);
    if (subject.isBlank() || subject.length() > 256) {
      throw malformed("\"identity.subject\" must be 1 to 256 characters", json);
    }
    Set<String> scopes = new LinkedHashSet<>();
    JsonNode list = who.get("scopes");
    if (list != null && !list.isNull()) {
      if (!list.isArray() || list.size() > 1024) {
        throw malformed("\"identity.scopes\" must be an array of at most 1024 strings", json);
      }
      for (JsonNode scope : list) {
        if (!scope.isString() || scope.asString().isBlank()) {
          throw malformed("\"identity.scopes\" must hold non-blank strings", json);
        }
        scopes.add(scope.asString());
      }
    }
    return Optional.of(new Identity(subject, scopes));
  }

  private static CallEvent.Failed failed(JsonNode json, String requestId) {
    JsonNode error = json.get("error");
    if (error == null || !error.isObject()) {
      throw malformed("\"error\" must be an object with code and message", json);
    }
    String codeName = string(error, "code", json);
    ErrorCode code;
    try {
      code = ErrorCode.valueOf(codeName.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      // A newer peer's code: keep the message, fail as a generic execution error.
      code = ErrorCode.EXECUTION_ERROR;
    }
    String message = string(error, "message", json);
    JsonNode retryable = error.get("retryable");
    if (retryable != null && !retryable.isBoolean() && !retryable.isNull()) {
      throw malformed("\"error.retryable\" must be a boolean", json);
    }
    JsonNode details = error.get("details");
    return new CallEvent.Failed(
        requestId,
        code,
        message,
        retryable == null || retryable.isNull() ? code.retryableByDefault() : retryable.asBoolean(),
        details == null || details.isNull() ? Optional.empty() : Optional.of(details));
  }

  private static String requestId(JsonNode json) {
    String requestId = string(json, "requestId", null);
    if (!REQUEST_ID.matcher(requestId).matches()) {
      throw malformed("\"requestId\" must be 1 to 128 letters, digits, '_', '.', ':' or '-'", null);
    }
    return requestId;
  }

  private static String string(JsonNode json, String field, JsonNode event) {
    JsonNode value = json.get(field);
    if (value == null || !value.isString()) {
      throw malformed("\"" + field + "\" is missing or not a string", event);
    }
    return value.asString();
  }

  private static Optional<String> optionalString(JsonNode json, String field, JsonNode event) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isString()) {
      throw malformed("\"" + field + "\" must be a string", event);
    }
    return Optional.of(value.asString());
  }

  private static OptionalLong nonNegative(JsonNode json, String field) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return OptionalLong.empty();
    }
    if (!value.isNumber() || !value.canConvertToLong() || value.asLong() < 0) {
      throw malformed("\"" + field + "\" must be a non-negative integer", json);
    }
    return OptionalLong.of(value.asLong());
  }

  private static OptionalLong positive(JsonNode json, String field) {
    OptionalLong value = nonNegative(json, field);
    if (value.isPresent() && value.getAsLong() == 0) {
      throw malformed("\"" + field + "\" must be positive", json);
    }
    return value;
  }

  /**
   * A PROTOCOL_ERROR; its details hold the request id and reply topic when {@code event} has
   * readable ones, so a receiver can tell the sender.
   */
  private static CallError malformed(String reason, JsonNode event) {
    ObjectNode details = Json.nodes().objectNode();
    if (event != null) {
      JsonNode requestId = event.get("requestId");
      if (requestId != null
          && requestId.isString()
          && REQUEST_ID.matcher(requestId.asString()).matches()) {
        details.put("requestId", requestId.asString());
      }
      JsonNode replyTo = event.get("replyTo");
      if (replyTo != null && replyTo.isString() && TOPIC.matcher(replyTo.asString()).matches()) {
        details.put("replyTo", replyTo.asString());
      }
    }
    return CallError.builder(ErrorCode.PROTOCOL_ERROR, "Malformed call event: " + reason)
        .details(details)
        .build();
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

  /** Whether {@code topic} may be used as a reply topic. */
  public static boolean isValidTopic(String topic) {
    return TOPIC.matcher(topic).matches();
  }

  private static String printable(String text) {
    String cut = text.length() > 64 ? text.substring(0, 64) + "..." : text;
    return cut.replaceAll("\\p{Cntrl}", "?");
  }
}
