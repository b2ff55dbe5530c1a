package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.http.HttpGateway;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI 3.1 document of the operations a caller may see: one path per operation, its input
 * and output schemas (OpenAPI 3.1 schemas are JSON Schema 2020-12, so they go in as they are, their
 * {@code $defs} moved to {@code components.schemas} because a {@code $ref} inside the document
 * resolves against the document), the error shape, the bearer scheme when an authenticator is set,
 * and streams as {@code text/event-stream} with 3.2's {@code itemSchema}.
 *
 * <p>A QUERY or SUBSCRIPTION whose input is a flat object (scalar properties, or arrays of scalars)
 * is described as a GET with one query parameter per property, which is how a generic client (our
 * own importer included) sends it; any other operation as a POST with a JSON body.
 */
final class OpenApiDocument {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Set<String> SCALARS = Set.of("string", "integer", "number", "boolean");

  private final String title;
  private final boolean bearer;

  OpenApiDocument(String title, boolean bearer) {
    this.title = title;
    this.bearer = bearer;
  }

  /**
   * The document. OpenAPI 3.1 has no way to describe a stream's items, so there the item schema
   * goes under {@code x-itemSchema} (3.1 validators accept extensions); with {@code v32} the
   * document says 3.2.0 and uses 3.2's {@code itemSchema}.
   */
  ObjectNode build(List<OperationSpec> specs, boolean v32) {
    ObjectNode doc = NODES.objectNode();
    doc.put("openapi", v32 ? "3.2.0" : "3.1.0");
    ObjectNode info = doc.putObject("info");
    info.put("title", title);
    info.put("version", "1.0.0");
    info.put(
        "description",
        "Operations served by the operations-for-Java HTTP gateway. Every answer is the response"
            + " envelope {data, meta}; send 'Prefer: return=minimal' for the data alone. Errors are"
            + " {error: {code, message, retryable, details}}. '"
            + HttpGateway.TIMEOUT_HEADER
            + "' sets a call's timeout in milliseconds; 'traceparent' is passed on.");
    doc.put("jsonSchemaDialect", "https://json-schema.org/draft/2020-12/schema");
    // Relative: the gateway that served this document, whatever name or port it was reached by,
    // so an importer given the document's URL calls back where it came from.
    doc.putArray("servers")
        .addObject()
        .put("url", "/")
        .put("description", "The gateway that serves this document");
    ObjectNode paths = doc.putObject("paths");
    ObjectNode components = NODES.objectNode();
    ObjectNode schemas = components.putObject("schemas");
    schemas.set("Error", errorSchema());
    schemas.set(
        "ResponseMeta", embed(Envelopes.responseMetaSchema().json(), "ResponseMeta", schemas));
    ObjectNode responses = components.putObject("responses");
    responses
        .putObject("Error")
        .put("description", "The call failed; the status follows the error code")
        .putObject("content")
        .putObject("application/json")
        .putObject("schema")
        .put("$ref", "#/components/schemas/Error");
    if (bearer) {
      components
          .putObject("securitySchemes")
          .putObject("bearer")
          .put("type", "http")
          .put("scheme", "bearer");
    }
    for (OperationSpec spec : specs) {
      paths.set("/ops/" + spec.id(), pathItem(spec, schemas, v32));
    }
    doc.set("components", components);
    return doc;
  }

  private ObjectNode pathItem(OperationSpec spec, ObjectNode schemas, boolean v32) {
    String prefix = componentName(spec.id());
    JsonNode input = embed(spec.inputSchema().json(), prefix + "_input", schemas);
    JsonNode output = embed(spec.outputSchema().json(), prefix + "_output", schemas);
    ObjectNode item = NODES.objectNode();
    boolean flat = spec.type() != OperationType.MUTATION && isFlat(input);
    ObjectNode op = item.putObject(flat ? "get" : "post");
    op.put("operationId", spec.id());
    if (!spec.description().isEmpty()) {
      op.put("summary", firstLine(spec.description()));
      op.put("description", spec.description());
    }
    op.putArray("tags").add(spec.namespace());
    if (flat) {
      ArrayNode parameters = op.putArray("parameters");
      Set<String> required = new java.util.HashSet<>();
      input.path("required").forEach(r -> required.add(r.asString("")));
      for (Map.Entry<String, JsonNode> property : input.path("properties").properties()) {
        ObjectNode parameter = parameters.addObject();
        parameter.put("name", property.getKey());
        parameter.put("in", "query");
        parameter.put("required", required.contains(property.getKey()));
        if (property.getValue().has("description")) {
          parameter.set("description", property.getValue().get("description"));
        }
        parameter.set("schema", property.getValue());
        if (types(property.getValue()).contains("array")) {
          parameter.put("style", "form");
          parameter.put("explode", true);
        }
      }
    } else {
      ObjectNode body = op.putObject("requestBody");
      body.put("required", input.path("required").isArray() && !input.path("required").isEmpty());
      body.putObject("content").putObject("application/json").set("schema", input);
    }
    ObjectNode responses = op.putObject("responses");
    ObjectNode ok = responses.putObject("200");
    ObjectNode envelope = envelope(output);
    if (spec.type() == OperationType.SUBSCRIPTION) {
      ok.put(
          "description",
          "A stream of Server-Sent Events: one event per item (data: the envelope as JSON, id: its"
              + " number), then 'call.completed', or 'call.error' with the error shape");
      ObjectNode media = ok.putObject("content").putObject("text/event-stream");
      media.putObject("schema").put("type", "string");
      media.set(v32 ? "itemSchema" : "x-itemSchema", envelope);
    } else {
      ok.put("description", "The result in its response envelope");
      ok.putObject("content").putObject("application/json").set("schema", envelope);
    }
    responses.putObject("default").put("$ref", "#/components/responses/Error");
    if (bearer) {
      ArrayNode security = op.putArray("security");
      List<String> scopes = new ArrayList<>(spec.accessControl().requiredScopes());
      scopes.sort(null);
      if (scopes.isEmpty()) {
        security.addObject(); // anonymous callers may call it too
        security.addObject().putArray("bearer");
      } else {
        ArrayNode needed = security.addObject().putArray("bearer");
        scopes.forEach(needed::add);
      }
    }
    // The importer reads GET as QUERY and POST as MUTATION; the extension keeps the real type.
    op.put("x-ops-type", spec.type().name());
    return item;
  }

  private static ObjectNode envelope(JsonNode output) {
    ObjectNode envelope = NODES.objectNode();
    envelope.put("type", "object");
    envelope.putArray("required").add("data").add("meta");
    ObjectNode properties = envelope.putObject("properties");
    properties.set("data", output);
    properties.putObject("meta").put("$ref", "#/components/schemas/ResponseMeta");
    return envelope;
  }

  private static ObjectNode errorSchema() {
    ObjectNode error = NODES.objectNode();
    error.put("type", "object");
    error.putArray("required").add("error");
    ObjectNode inner = error.putObject("properties").putObject("error");
    inner.put("type", "object");
    inner.putArray("required").add("code").add("message");
    ObjectNode props = inner.putObject("properties");
    ArrayNode codes = props.putObject("code").put("type", "string").putArray("enum");
    for (dev.alkdev.operations.ErrorCode code : dev.alkdev.operations.ErrorCode.values()) {
      codes.add(code.name());
    }
    props.putObject("message").put("type", "string");
    props.putObject("retryable").put("type", "boolean");
    props
        .putObject("details")
        .put("description", "For INVALID_INPUT: {errors: [{instancePath, keyword, message}]}");
    return error;
  }

  /**
   * Whether the input can be sent as query fields: an object of scalars (or arrays of them), or no
   * schema at all (a call without input, as most such operations are).
   */
  private static boolean isFlat(JsonNode input) {
    if (input.isObject() && input.isEmpty()) {
      return true;
    }
    if (!input.isObject() || !types(input).equals(List.of("object"))) {
      return false;
    }
    for (String keyword :
        List.of(
            "allOf",
            "anyOf",
            "oneOf",
            "$ref",
            "if",
            "not",
            "patternProperties",
            "dependentSchemas")) {
      if (input.has(keyword)) {
        return false;
      }
    }
    for (Map.Entry<String, JsonNode> property : input.path("properties").properties()) {
      if (property.getKey().equals(Inputs.INPUT_PARAMETER)
          || !scalarOrArrayOfScalars(property.getValue())) {
        return false;
      }
    }
    return true;
  }

  private static boolean scalarOrArrayOfScalars(JsonNode property) {
    List<String> types = types(property);
    if (types.size() != 1 || property.has("$ref")) {
      return false;
    }
    if (SCALARS.contains(types.get(0))) {
      return true;
    }
    if (types.get(0).equals("array")) {
      List<String> itemTypes = types(property.path("items"));
      return itemTypes.size() == 1
          && SCALARS.contains(itemTypes.get(0))
          && !property.path("items").has("$ref");
    }
    return false;
  }

  private static List<String> types(JsonNode schema) {
    JsonNode type = schema.path("type");
    if (type.isString()) {
      return List.of(type.asString());
    }
    List<String> list = new ArrayList<>();
    type.forEach(t -> list.add(t.asString("")));
    return list;
  }

  /**
   * The schema with its {@code $defs} (or draft-07 {@code definitions}) moved to {@code
   * components.schemas} under {@code prefix_name} and every {@code $ref} to them rewritten; a
   * schema that refers to its own root ({@code "#"}) becomes a component itself.
   */
  static JsonNode embed(JsonNode schema, String prefix, ObjectNode components) {
    if (!schema.isObject()) {
      return schema.deepCopy();
    }
    ObjectNode copy = (ObjectNode) schema.deepCopy();
    copy.remove("$schema");
    copy.remove("$id");
    Map<String, String> renamed = new HashMap<>();
    Map<String, JsonNode> defs = new HashMap<>();
    for (String keyword : List.of("$defs", "definitions")) {
      JsonNode found = copy.remove(keyword);
      if (found != null && found.isObject()) {
        for (Map.Entry<String, JsonNode> def : found.properties()) {
          String name = componentName(prefix + "_" + def.getKey());
          renamed.put("#/" + keyword + "/" + escape(def.getKey()), "#/components/schemas/" + name);
          defs.put(name, def.getValue());
        }
      }
    }
    boolean selfReferring =
        refersToRoot(copy) || defs.values().stream().anyMatch(OpenApiDocument::refersToRoot);
    String rootName = componentName(prefix);
    if (selfReferring) {
      renamed.put("#", "#/components/schemas/" + rootName);
    }
    rewrite(copy, renamed);
    for (Map.Entry<String, JsonNode> def : defs.entrySet()) {
      rewrite(def.getValue(), renamed);
      components.set(def.getKey(), def.getValue());
    }
    if (selfReferring) {
      components.set(rootName, copy);
      return NODES.objectNode().put("$ref", "#/components/schemas/" + rootName);
    }
    return copy;
  }

  private static boolean refersToRoot(JsonNode node) {
    if (node.isObject()) {
      JsonNode ref = node.get("$ref");
      if (ref != null
          && ref.isString()
          && (ref.asString().equals("#")
              || ref.asString().startsWith("#/properties")
              || ref.asString().startsWith("#/items"))) {
        return true;
      }
    }
    for (JsonNode child : node) {
      if (refersToRoot(child)) {
        return true;
      }
    }
    return false;
  }

  private static void rewrite(JsonNode node, Map<String, String> renamed) {
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      JsonNode ref = object.get("$ref");
      if (ref != null && ref.isString()) {
        object.put("$ref", renamedRef(ref.asString(), renamed));
      }
    }
    for (JsonNode child : node) {
      rewrite(child, renamed);
    }
  }

  private static String renamedRef(String ref, Map<String, String> renamed) {
    String best = null;
    for (String from : renamed.keySet()) {
      boolean matches =
          from.equals("#")
              ? ref.equals("#") || ref.startsWith("#/properties") || ref.startsWith("#/items")
              : ref.equals(from) || ref.startsWith(from + "/");
      if (matches && (best == null || from.length() > best.length())) {
        best = from;
      }
    }
    if (best == null) {
      return ref;
    }
    String to = renamed.get(best);
    return best.equals("#") ? to + ref.substring(1) : to + ref.substring(best.length());
  }

  private static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }

  /** Component names allow letters, digits, '.', '-' and '_'. */
  static String componentName(String raw) {
    return raw.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  private static String firstLine(String text) {
    int end = text.indexOf('\n');
    String line = end < 0 ? text : text.substring(0, end);
    return line.length() > 120 ? line.substring(0, 117) + "..." : line;
  }
}
