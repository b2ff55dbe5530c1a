package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.remote.internal.ThreadRecyclers;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The reference reader of {@link CallEvent}s: a message as a tree, every field checked, every
 * PROTOCOL_ERROR with its message, the JSON pointer of the wrong field and the request id and reply
 * topic it could read. {@link StreamingEventReader} hands it every message that is not a plain
 * valid event.
 */
final class EventReader {
  // Sizes are checked before parsing; duplicate names are refused because JSON parsers disagree on
  // which one wins, and a relay must not read another requestId than the receiver.
  // Buffers recycled per thread (ThreadRecyclers): every call reads and writes events.
  static final JsonMapper READER =
      JsonMapper.builder(
              Json.boundedMapper(CallEvents.MAX_NESTING_DEPTH, Integer.MAX_VALUE)
                  .tokenStreamFactory()
                  .rebuild()
                  .recyclerPool(ThreadRecyclers.POOL)
                  .build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private EventReader() {}

  /**
   * The reference reader: the whole message as a tree, then {@link EventReader#fromJson}. It gives
   * every PROTOCOL_ERROR its message, pointer and salvaged fields; {@link
   * StreamingEventReader#decodeStreaming} hands it every message that is not a plain valid event.
   */
  static CallEvent decodeTree(byte[] bytes) {
    JsonNode json;
    try {
      json = READER.readTree(bytes);
    } catch (JacksonException e) {
      throw malformed(
          "message is not valid JSON: " + firstLine(e.getOriginalMessage()),
          null,
          salvage(bytes, bytes.length));
    }
    return fromJson(json);
  }

  /** Reads one event from its JSON object. */
  static CallEvent fromJson(JsonNode json) {
    if (json == null || json.isMissingNode()) {
      throw malformed("message is empty", null, null);
    }
    if (!json.isObject()) {
      throw malformed("an event must be a JSON object, was " + Json.describe(json), "", null);
    }
    JsonNode v = json.get("v");
    if (v == null || v.isNull()) {
      throw malformed("\"v\" (the protocol version) is missing", "/v", json);
    }
    if (!v.isNumber() || !(v.isIntegralNumber() || v.canConvertToExactIntegral())) {
      throw malformed(
          "\"v\" (the protocol version) must be an integer, was " + Json.describe(v), "/v", json);
    }
    OptionalLong version = exactLong(v);
    if (version.isEmpty() || version.getAsLong() != CallEvents.PROTOCOL_VERSION) {
      CallError error =
          malformed(
              "protocol version "
                  + Json.cut(v.toString(), 40)
                  + " is not supported (this side speaks "
                  + CallEvents.PROTOCOL_VERSION
                  + ")",
              "/v",
              json);
      ((ObjectNode) error.details().orElseThrow())
          .putArray("supportedVersions")
          .add(CallEvents.PROTOCOL_VERSION);
      throw error;
    }
    JsonNode typeNode = json.get("type");
    if (typeNode != null && typeNode.isString() && typeNode.asString().equals("call.alive")) {
      return alive(json); // the one event that belongs to no call, so has no requestId
    }
    String requestId = requestId(json);
    String type = string(json, "type", json);
    switch (type) {
      case "call.requested":
        return requested(json, requestId);
      case "call.responded":
        return responded(json, requestId);
      case "call.error":
        return failed(json.get("error"), json, requestId);
      case "call.completed":
        return new CallEvent.Completed(requestId);
      case "call.aborted":
        return new CallEvent.Aborted(requestId, optionalString(json, "reason", json));
      case "call.demand":
        {
          JsonNode n = json.get("n");
          OptionalLong value = n == null ? OptionalLong.empty() : exactLong(n);
          if (value.isEmpty() || value.getAsLong() <= 0) {
            throw malformed(
                "\"n\" must be an integer from 1 to 2^63-1, was " + Json.describe(n), "/n", json);
          }
          return new CallEvent.Demand(requestId, value.getAsLong());
        }
      default:
        throw malformed(
            "unknown event type "
                + Json.quote(type)
                + " (version "
                + CallEvents.PROTOCOL_VERSION
                + " has call.requested, call.responded, call.error, call.completed, call.aborted,"
                + " call.demand, call.alive)",
            "/type",
            json);
    }
  }

  private static CallEvent.Alive alive(JsonNode json) {
    String inbox = string(json, "inbox", json);
    if (!ProtocolTopics.isInbox(inbox)) {
      throw malformed(
          "\"inbox\" must be ops.inbox. followed by 1 to 128 letters, digits, '_', '.', ':' or"
              + " '-', was "
              + Json.quote(inbox),
          "/inbox",
          json);
    }
    return new CallEvent.Alive(inbox);
  }

  private static CallEvent.Requested requested(JsonNode json, String requestId) {
    Optional<String> replyTo = optionalString(json, "replyTo", json);
    if (replyTo.isPresent() && !WireIds.isValidTopic(replyTo.get())) {
      throw malformed(
          "\"replyTo\" must be 1 to 256 letters, digits, '_', '.', ':', '/', '@' or '-' (no"
              + " spaces or wildcards), was "
              + Json.quote(replyTo.get()),
          "/replyTo",
          json);
    }
    String operationId = string(json, "operationId", json);
    Optional<String> parent = optionalString(json, "parentRequestId", json);
    if (parent.isPresent() && !WireIds.isValidRequestId(parent.get())) {
      throw malformed(
          "\"parentRequestId\" must be a request id (1 to 128 letters, digits, '_', '.', ':' or"
              + " '-'), was "
              + Json.quote(parent.get()),
          "/parentRequestId",
          json);
    }
    JsonNode input = json.get("input");
    Optional<Identity> identity = identity(json.get("identity"), json);
    OptionalLong deadline = integer(json, "deadlineMs", 0);
    OptionalLong demand = integer(json, "demand", 1);
    CallMetadata meta = meta(json.get("meta"), json);
    try {
      // The constructor checks the operation id; every other field is checked above.
      return new CallEvent.Requested(
          requestId,
          operationId,
          input == null ? Json.nodes().nullNode() : input,
          parent,
          identity,
          deadline,
          replyTo,
          demand,
          meta);
    } catch (IllegalArgumentException e) {
      if (!OperationSpec.isValidId(operationId)) {
        throw malformed(
            "\"operationId\" must be namespace.name (letters, digits, '_' and '-'; a namespace of"
                + " up to 64 and a name of up to 128 characters), was "
                + Json.quote(operationId),
            "/operationId",
            json);
      }
      throw malformed(e.getMessage(), null, json);
    }
  }

  /**
   * The {@code meta} of a request: an object of at most {@link CallMetadata#MAX_ENTRIES} string
   * values, within {@link CallMetadata}'s limits on keys, values and total size.
   */
  static CallMetadata meta(JsonNode meta, JsonNode json) {
    if (meta == null || meta.isNull()) {
      return CallMetadata.empty();
    }
    if (!meta.isObject()) {
      throw malformed(
          "\"meta\" must be an object of string values, was " + Json.describe(meta), "/meta", json);
    }
    if (meta.size() > CallMetadata.MAX_ENTRIES) {
      throw malformed(
          "\"meta\" may hold at most " + CallMetadata.MAX_ENTRIES + " entries, has " + meta.size(),
          "/meta",
          json);
    }
    Map<String, String> entries = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : meta.properties()) {
      String key = entry.getKey();
      Optional<String> keyProblem = CallMetadata.keyProblem(key);
      if (keyProblem.isPresent()) {
        throw malformed("\"meta\": " + keyProblem.get(), "/meta", json);
      }
      String pointer = "/meta/" + key; // a valid key has no '/' or '~' to escape
      JsonNode value = entry.getValue();
      if (!value.isString()) {
        throw malformed(
            "\"meta." + key + "\" must be a string, was " + Json.describe(value), pointer, json);
      }
      Optional<String> valueProblem = CallMetadata.valueProblem(key, value.asString());
      if (valueProblem.isPresent()) {
        throw malformed("\"meta\": " + valueProblem.get(), pointer, json);
      }
      entries.put(key, value.asString());
    }
    try {
      return CallMetadata.of(entries);
    } catch (IllegalArgumentException e) {
      throw malformed("\"meta\": " + e.getMessage(), "/meta", json); // the total size
    }
  }

  private static CallEvent.Responded responded(JsonNode json, String requestId) {
    JsonNode output = json.get("output");
    if (output == null) {
      throw malformed("\"output\" (the response envelope) is missing", "/output", json);
    }
    try {
      return new CallEvent.Responded(requestId, Envelopes.fromJson(output));
    } catch (CallError e) {
      String pointer =
          e.details()
              .map(d -> d.get("pointer"))
              .filter(JsonNode::isString)
              .map(JsonNode::asString)
              .orElse("");
      throw malformed(
          "\"output\" is not a response envelope: " + e.getMessage(), "/output" + pointer, json);
    }
  }

  static Optional<Identity> identity(JsonNode who, JsonNode json) {
    if (who == null || who.isNull()) {
      return Optional.empty();
    }
    if (!who.isObject()) {
      throw malformed(
          "\"identity\" must be an object with subject and scopes, was " + Json.describe(who),
          "/identity",
          json);
    }
    JsonNode subjectNode = who.get("subject");
    if (subjectNode == null || !subjectNode.isString()) {
      throw malformed("\"identity.subject\" is missing or not a string", "/identity/subject", json);
    }
    String subject = subjectNode.asString();
    if (subject.isBlank()
        || subject.codePointCount(0, subject.length()) > CallEvents.MAX_SUBJECT_LENGTH) {
      throw malformed(
          "\"identity.subject\" must be 1 to "
              + CallEvents.MAX_SUBJECT_LENGTH
              + " characters, not all whitespace",
          "/identity/subject",
          json);
    }
    Set<String> scopes = new LinkedHashSet<>();
    JsonNode list = who.get("scopes");
    if (list != null && !list.isNull()) {
      if (!list.isArray() || list.size() > CallEvents.MAX_SCOPES) {
        throw malformed(
            "\"identity.scopes\" must be an array of at most " + CallEvents.MAX_SCOPES + " strings",
            "/identity/scopes",
            json);
      }
      for (int i = 0; i < list.size(); i++) {
        JsonNode scope = list.get(i);
        if (!scope.isString() || scope.asString().isBlank()) {
          throw malformed(
              "\"identity.scopes\" must hold strings that are not blank; item "
                  + i
                  + " is "
                  + Json.describe(scope),
              "/identity/scopes/" + i,
              json);
        }
        scopes.add(scope.asString());
      }
    }
    return Optional.of(new Identity(subject, scopes));
  }

  static CallEvent.Failed failed(JsonNode error, JsonNode json, String requestId) {
    if (error == null || !error.isObject()) {
      throw malformed(
          "\"error\" must be an object with code and message, was " + Json.describe(error),
          "/error",
          json);
    }
    JsonNode codeNode = error.get("code");
    if (codeNode == null || !codeNode.isString()) {
      throw malformed("\"error.code\" is missing or not a string", "/error/code", json);
    }
    ErrorCode code;
    try {
      code = ErrorCode.valueOf(codeNode.asString().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      // A newer peer's code: keep the message, fail as a generic execution error.
      code = ErrorCode.EXECUTION_ERROR;
    }
    JsonNode message = error.get("message");
    if (message == null || !message.isString()) {
      throw malformed("\"error.message\" is missing or not a string", "/error/message", json);
    }
    JsonNode retryable = error.get("retryable");
    if (retryable != null && !retryable.isBoolean() && !retryable.isNull()) {
      throw malformed(
          "\"error.retryable\" must be a boolean, was " + Json.describe(retryable),
          "/error/retryable",
          json);
    }
    JsonNode details = error.get("details");
    return new CallEvent.Failed(
        requestId,
        code,
        message.asString(),
        retryable == null || retryable.isNull() ? code.retryableByDefault() : retryable.asBoolean(),
        details == null || details.isNull() ? Optional.empty() : Optional.of(details));
  }

  private static String requestId(JsonNode json) {
    JsonNode value = json.get("requestId");
    if (value == null || !value.isString()) {
      throw malformed(
          "\"requestId\" is missing or not a string, was " + Json.describe(value),
          "/requestId",
          null);
    }
    if (!WireIds.isValidRequestId(value.asString())) {
      throw malformed(
          "\"requestId\" must be 1 to 128 letters, digits, '_', '.', ':' or '-', was "
              + Json.quote(value.asString()),
          "/requestId",
          null);
    }
    return value.asString();
  }

  private static String string(JsonNode json, String field, JsonNode event) {
    JsonNode value = json.get(field);
    if (value == null || !value.isString()) {
      throw malformed(
          "\"" + field + "\" is missing or not a string, was " + Json.describe(value),
          "/" + field,
          event);
    }
    return value.asString();
  }

  private static Optional<String> optionalString(JsonNode json, String field, JsonNode event) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isString()) {
      throw malformed(
          "\"" + field + "\" must be a string, was " + Json.describe(value), "/" + field, event);
    }
    return Optional.of(value.asString());
  }

  /** An optional integer field of at least {@code min}; null counts as absent. */
  private static OptionalLong integer(JsonNode json, String field, long min) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return OptionalLong.empty();
    }
    OptionalLong number = exactLong(value);
    if (number.isEmpty() || number.getAsLong() < min) {
      throw malformed(
          "\""
              + field
              + "\" must be an integer from "
              + min
              + " to 2^63-1, was "
              + Json.describe(value),
          "/" + field,
          json);
    }
    return number;
  }

  /**
   * The value of a JSON number that is an integer fitting a long, as JSON Schema counts integers
   * ({@code 1.0} is one); empty for anything else. Never throws, however large the number.
   */
  private static OptionalLong exactLong(JsonNode value) {
    if (!value.isNumber()) {
      return OptionalLong.empty();
    }
    if (value.isIntegralNumber()) {
      return value.canConvertToLong() ? OptionalLong.of(value.longValue()) : OptionalLong.empty();
    }
    return value.canConvertToExactIntegral() && value.canConvertToLong()
        ? OptionalLong.of(value.asLong())
        : OptionalLong.empty();
  }

  /**
   * The top-level {@code requestId} and {@code replyTo} of a message that cannot be read whole, as
   * far as the first {@code length} bytes are readable JSON: enough to answer the sender when it
   * wrote them before the damage (this library's writers put them first).
   */
  static JsonNode salvage(byte[] bytes, int length) {
    ObjectNode found = Json.nodes().objectNode();
    try (JsonParser parser = READER.createParser(bytes, 0, length)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return found;
      }
      while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (value == JsonToken.VALUE_STRING
            && (name.equals("requestId") || name.equals("replyTo"))
            && !found.has(name)) {
          found.put(name, parser.getString());
          if (found.size() == 2) {
            break;
          }
        } else {
          parser.skipChildren();
        }
      }
    } catch (JacksonException e) {
      // The damage (or the end of the scanned bytes) is reached: keep what was found before it.
    }
    return found;
  }

  /**
   * A PROTOCOL_ERROR. Its details hold the request id and reply topic when {@code event} has valid
   * ones, so a receiver can tell the sender, and the JSON Pointer of the wrong field.
   */
  static CallError malformed(String reason, String pointer, JsonNode event) {
    ObjectNode details = Json.nodes().objectNode();
    if (event != null) {
      JsonNode requestId = event.get("requestId");
      if (requestId != null
          && requestId.isString()
          && WireIds.isValidRequestId(requestId.asString())) {
        details.put("requestId", requestId.asString());
      }
      JsonNode replyTo = event.get("replyTo");
      if (replyTo != null && replyTo.isString() && WireIds.isValidTopic(replyTo.asString())) {
        details.put("replyTo", replyTo.asString());
      }
    }
    if (pointer != null) {
      details.put("pointer", pointer);
    }
    return CallError.builder(ErrorCode.PROTOCOL_ERROR, "Malformed call event: " + reason)
        .details(details)
        .build();
  }

  private static String firstLine(String text) {
    int end = text.indexOf('\n');
    return Json.cut(end < 0 ? text : text.substring(0, end), 200);
  }
}
