package dev.alkdev.operations.envelope.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.LocalResponseMeta;
import dev.alkdev.operations.envelope.McpAnnotations;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResourceContent;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.McpRole;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.envelope.ResponseMeta;
import dev.alkdev.operations.envelope.ResponseSource;
import dev.alkdev.operations.envelope.SseEventMeta;
import dev.alkdev.operations.internal.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads envelopes from the seeds' JSON, by hand: every field is checked, and a wrong one gets a
 * {@link ErrorCode#PROTOCOL_ERROR} whose message and {@code details.pointer} say which.
 *
 * <p>Leniency, where it loses nothing: an optional field set to JSON {@code null} counts as absent
 * (servers written with other JSON libraries send that), header names are lower-cased, fields the
 * envelope and its metas do not define are ignored (a newer peer's additions), and fields a content
 * block, resource or annotation does not model are kept. Nothing is copied: the envelope shares
 * nodes with {@code json}.
 */
public final class EnvelopeReader {
  private static final Set<String> TEXT_FIELDS = Set.of("type", "text", "annotations");
  private static final Set<String> BINARY_FIELDS =
      Set.of("type", "data", "mimeType", "annotations");
  private static final Set<String> RESOURCE_FIELDS = Set.of("type", "resource", "annotations");
  private static final Set<String> LINK_FIELDS =
      Set.of("type", "uri", "name", "description", "mimeType");
  private static final Set<String> CONTENTS_FIELDS = Set.of("uri", "mimeType", "text", "blob");
  private static final Set<String> ANNOTATION_FIELDS =
      Set.of("audience", "priority", "lastModified");

  private EnvelopeReader() {}

  /** Reads a whole envelope. */
  public static ResponseEnvelope<JsonNode> read(JsonNode json) {
    Objects.requireNonNull(json, "json");
    if (!json.isObject()) {
      throw invalid(
          "", "must be a JSON object with \"data\" and \"meta\", was " + Json.describe(json));
    }
    JsonNode data = json.get("data");
    if (data == null) {
      throw invalid(
          "/data",
          "is missing (an envelope always has data: JSON null when the operation returned"
              + " nothing)");
    }
    return new ResponseEnvelope<>(data, meta(json.get("meta"), "/meta"));
  }

  private static ResponseMeta meta(JsonNode node, String path) {
    ObjectNode meta = object(node, path);
    String sourceName = string(meta, "source", path);
    ResponseSource source =
        ResponseSource.fromWireName(sourceName)
            .orElseThrow(
                () ->
                    invalid(
                        path + "/source",
                        "is "
                            + Json.quote(sourceName)
                            + ", expected one of \"local\", \"http\", \"mcp\""));
    switch (source) {
      case LOCAL:
        return local(meta, path);
      case HTTP:
        return http(meta, path);
      case MCP:
        return mcp(meta, path);
      default:
        throw new AssertionError(source);
    }
  }

  private static LocalResponseMeta local(ObjectNode meta, String path) {
    String operationId = string(meta, "operationId", path);
    if (operationId.isEmpty()) {
      throw invalid(path + "/operationId", "must not be empty");
    }
    JsonNode timestamp = required(meta, "timestamp", path);
    if (!timestamp.isNumber()
        || !timestamp.canConvertToExactIntegral()
        || !timestamp.canConvertToLong()) {
      // The pointer is built only here: on every reply, building it cost more than the check.
      throw invalid(
          pointer(path, "timestamp"),
          "must be a whole number of Unix epoch milliseconds, was " + Json.describe(timestamp));
    }
    return new LocalResponseMeta(operationId, timestamp.longValue());
  }

  private static HttpResponseMeta http(ObjectNode meta, String path) {
    JsonNode status = required(meta, "statusCode", path);
    if (!status.isNumber()
        || !status.canConvertToExactIntegral()
        || !status.canConvertToInt()
        || status.intValue() < 100
        || status.intValue() > 999) {
      throw invalid(
          pointer(path, "statusCode"),
          "must be an HTTP status code, an integer from 100 to 999, was " + Json.describe(status));
    }
    String headersPath = pointer(path, "headers");
    ObjectNode headers = object(meta.get("headers"), headersPath);
    Map<String, List<String>> values = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> header : headers.properties()) {
      values
          .computeIfAbsent(lowerCase(header.getKey()), name -> new ArrayList<>())
          .add(stringValue(header.getValue(), headersPath, header.getKey()));
    }
    Map<String, String> joined = new LinkedHashMap<>();
    values.forEach(
        (name, list) -> joined.put(name, String.join(HttpResponseMeta.VALUE_SEPARATOR, list)));
    String contentType = string(meta, "contentType", path);

    String repeatedPath = pointer(path, "headerValues");
    Optional<JsonNode> repeated = optional(meta, "headerValues");
    if (repeated.isPresent()) {
      for (Map.Entry<String, JsonNode> header : object(repeated.get(), repeatedPath).properties()) {
        String at = pointer(repeatedPath, header.getKey());
        String name = lowerCase(header.getKey());
        List<String> list = stringList(header.getValue(), at);
        if (list.isEmpty()) {
          throw invalid(at, "must list at least one value");
        }
        String join = String.join(HttpResponseMeta.VALUE_SEPARATOR, list);
        if (!joined.containsKey(name)) {
          throw invalid(at, "names a header that " + headersPath + " does not have");
        }
        if (!join.equals(joined.get(name))) {
          throw invalid(
              at,
              "joins to "
                  + Json.quote(join)
                  + " but "
                  + pointer(headersPath, name)
                  + " is "
                  + Json.quote(joined.get(name)));
        }
        values.put(name, list);
      }
    }
    Optional<SseEventMeta> event = Optional.empty();
    Optional<JsonNode> eventJson = optional(meta, "event");
    if (eventJson.isPresent()) {
      event =
          Optional.of(
              sseEvent(object(eventJson.get(), pointer(path, "event")), pointer(path, "event")));
    }
    return new HttpResponseMeta(status.intValue(), joined, contentType, values, event);
  }

  private static SseEventMeta sseEvent(ObjectNode event, String path) {
    String type = string(event, "type", path);
    if (type.isEmpty()) {
      throw invalid(pointer(path, "type"), "must not be empty");
    }
    Optional<String> id = Optional.empty();
    Optional<JsonNode> idJson = optional(event, "id");
    if (idJson.isPresent()) {
      id = Optional.of(stringValue(idJson.get(), path, "id"));
    }
    OptionalLong retry = OptionalLong.empty();
    Optional<JsonNode> retryJson = optional(event, "retry");
    if (retryJson.isPresent()) {
      JsonNode value = retryJson.get();
      if (!value.isNumber()
          || !value.canConvertToExactIntegral()
          || !value.canConvertToLong()
          || value.longValue() < 0) {
        throw invalid(
            pointer(path, "retry"),
            "must be a whole number of milliseconds, 0 or more, was " + Json.describe(value));
      }
      retry = OptionalLong.of(value.longValue());
    }
    return new SseEventMeta(type, id, retry);
  }

  private static McpResponseMeta mcp(ObjectNode meta, String path) {
    JsonNode isError = required(meta, "isError", path);
    if (!isError.isBoolean()) {
      throw invalid(
          pointer(path, "isError"), "must be true or false, was " + Json.describe(isError));
    }
    String contentPath = pointer(path, "content");
    JsonNode content = required(meta, "content", path);
    if (!content.isArray()) {
      throw invalid(
          contentPath, "must be an array of content blocks, was " + Json.describe(content));
    }
    List<McpContentBlock> blocks = new ArrayList<>(content.size());
    int index = 0;
    for (JsonNode block : content.values()) {
      blocks.add(block(block, contentPath + "/" + index++));
    }
    Optional<ObjectNode> structured =
        optional(meta, "structuredContent")
            .map(value -> object(value, pointer(path, "structuredContent")));
    Optional<ObjectNode> extensions =
        optional(meta, "_meta").map(value -> object(value, pointer(path, "_meta")));
    return new McpResponseMeta(isError.booleanValue(), blocks, structured, extensions);
  }

  private static McpContentBlock block(JsonNode node, String path) {
    ObjectNode block = object(node, path);
    String type = string(block, "type", path);
    switch (type) {
      case "text":
        return new McpContentBlock.Text(
            string(block, "text", path),
            annotations(block, path),
            unknownFields(block, TEXT_FIELDS));
      case "image":
        return new McpContentBlock.Image(
            string(block, "data", path),
            string(block, "mimeType", path),
            annotations(block, path),
            unknownFields(block, BINARY_FIELDS));
      case "audio":
        return new McpContentBlock.Audio(
            string(block, "data", path),
            string(block, "mimeType", path),
            annotations(block, path),
            unknownFields(block, BINARY_FIELDS));
      case "resource":
        return new McpContentBlock.Resource(
            resourceContent(block.get("resource"), pointer(path, "resource")),
            annotations(block, path),
            unknownFields(block, RESOURCE_FIELDS));
      case "resource_link":
        return new McpContentBlock.ResourceLink(
            string(block, "uri", path),
            string(block, "name", path),
            optionalString(block, "description", path),
            optionalString(block, "mimeType", path),
            unknownFields(block, LINK_FIELDS));
      default:
        return new McpContentBlock.Unknown(block);
    }
  }

  private static McpResourceContent resourceContent(JsonNode node, String path) {
    ObjectNode resource = object(node, path);
    return new McpResourceContent(
        string(resource, "uri", path),
        optionalString(resource, "mimeType", path),
        optionalString(resource, "text", path),
        optionalString(resource, "blob", path),
        unknownFields(resource, CONTENTS_FIELDS));
  }

  private static Optional<McpAnnotations> annotations(ObjectNode block, String blockPath) {
    Optional<JsonNode> node = optional(block, "annotations");
    if (node.isEmpty()) {
      return Optional.empty();
    }
    String path = pointer(blockPath, "annotations");
    ObjectNode annotations = object(node.get(), path);

    Optional<List<McpRole>> audience = Optional.empty();
    Optional<JsonNode> audienceNode = optional(annotations, "audience");
    if (audienceNode.isPresent()) {
      String at = pointer(path, "audience");
      List<McpRole> roles = new ArrayList<>();
      int index = 0;
      for (String role : stringList(audienceNode.get(), at)) {
        String itemPath = at + "/" + index++;
        roles.add(
            McpRole.fromWireName(role)
                .orElseThrow(
                    () ->
                        invalid(
                            itemPath,
                            "must be \"user\" or \"assistant\", was " + Json.quote(role))));
      }
      audience = Optional.of(roles);
    }

    Optional<Double> priority = Optional.empty();
    Optional<JsonNode> priorityNode = optional(annotations, "priority");
    if (priorityNode.isPresent()) {
      JsonNode value = priorityNode.get();
      if (!value.isNumber() || !Double.isFinite(value.doubleValue())) {
        throw invalid(pointer(path, "priority"), "must be a number, was " + Json.describe(value));
      }
      priority = Optional.of(value.doubleValue());
    }

    return Optional.of(
        new McpAnnotations(
            audience,
            priority,
            optionalString(annotations, "lastModified", path),
            unknownFields(annotations, ANNOTATION_FIELDS)));
  }

  private static Map<String, JsonNode> unknownFields(ObjectNode node, Set<String> known) {
    Map<String, JsonNode> unknown = null;
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      if (!known.contains(field.getKey())) {
        if (unknown == null) {
          unknown = new LinkedHashMap<>();
        }
        unknown.put(field.getKey(), field.getValue());
      }
    }
    return unknown == null ? Map.of() : unknown;
  }

  // --- field access -------------------------------------------------------------------------

  private static JsonNode required(ObjectNode parent, String field, String path) {
    JsonNode value = parent.get(field);
    if (value == null) {
      throw invalid(pointer(path, field), "is missing");
    }
    return value;
  }

  /** A field that may be absent; JSON null counts as absent. */
  private static Optional<JsonNode> optional(ObjectNode parent, String field) {
    JsonNode value = parent.get(field);
    return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
  }

  private static ObjectNode object(JsonNode node, String path) {
    if (node == null) {
      throw invalid(path, "is missing");
    }
    if (!node.isObject()) {
      throw invalid(path, "must be an object, was " + Json.describe(node));
    }
    return (ObjectNode) node;
  }

  private static String string(ObjectNode parent, String field, String path) {
    return stringValue(required(parent, field, path), path, field);
  }

  private static Optional<String> optionalString(ObjectNode parent, String field, String path) {
    return optional(parent, field).map(value -> stringValue(value, path, field));
  }

  /** The string at {@code field} of {@code path}; the pointer is only built for the error. */
  private static String stringValue(JsonNode node, String path, String field) {
    if (!node.isString()) {
      throw invalid(pointer(path, field), "must be a string, was " + Json.describe(node));
    }
    return node.stringValue();
  }

  private static List<String> stringList(JsonNode node, String path) {
    if (!node.isArray()) {
      throw invalid(path, "must be an array of strings, was " + Json.describe(node));
    }
    List<String> list = new ArrayList<>(node.size());
    int index = 0;
    for (JsonNode item : node.values()) {
      list.add(stringValue(item, path, Integer.toString(index++)));
    }
    return list;
  }

  // --- messages -----------------------------------------------------------------------------

  private static CallError invalid(String pointer, String problem) {
    ObjectNode details = Json.nodes().objectNode();
    details.put("pointer", pointer);
    String where = pointer.isEmpty() ? "the envelope" : pointer;
    return CallError.builder(
            ErrorCode.PROTOCOL_ERROR, "Invalid response envelope: " + where + " " + problem)
        .details(details)
        .build();
  }

  /** A JSON Pointer (RFC 6901) to {@code field} of the value at {@code path}. */
  private static String pointer(String path, String field) {
    return path + "/" + field.replace("~", "~0").replace("/", "~1");
  }

  private static String lowerCase(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
