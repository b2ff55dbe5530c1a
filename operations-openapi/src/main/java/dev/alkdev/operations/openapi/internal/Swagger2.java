package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads a Swagger 2.0 document into the OpenAPI 3.0 shape the importer reads (decision D50): our
 * own reading rather than swagger-parser's converter, which drops {@code collectionFormat: tsv},
 * passes component names 3.x forbids through, and brings guava and rhino. What 3.0 cannot say is
 * kept in the tree under our own names ({@code style: tabDelimited}) or reported as a warning. Refs
 * into other files are left as they are: those files are read as written.
 */
final class Swagger2 {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Parameter and schema keys that are not schema keywords in a 2.0 non-body parameter. */
  private static final Set<String> NOT_SCHEMA =
      Set.of("name", "in", "description", "required", "collectionFormat", "allowEmptyValue");

  private static final String FORM = "application/x-www-form-urlencoded";
  private static final String MULTIPART = "multipart/form-data";

  private final JsonNode source;
  private final List<String> warnings;

  /** Old definition name to its 3.x-valid name (only names that changed). */
  private final Map<String, String> renamed = new HashMap<>();

  private Swagger2(JsonNode source, List<String> warnings) {
    this.source = source;
    this.warnings = warnings;
  }

  /** The 3.0 reading of {@code document}; what is lossy is added to {@code warnings}. */
  static ObjectNode convert(JsonNode document, List<String> warnings) {
    String version = document.path("swagger").asString("");
    if (!version.equals("2.0")) {
      throw CallError.of(
          ErrorCode.INVALID_INPUT,
          "Not a Swagger 2.0 document: \"swagger\" is '" + document.get("swagger") + "'");
    }
    return new Swagger2(document, warnings).convert();
  }

  private ObjectNode convert() {
    ObjectNode out = NODES.objectNode();
    out.put("openapi", "3.0.3");
    if (source.has("info")) {
      out.set("info", source.get("info"));
    }
    servers(out);
    ObjectNode components = out.putObject("components");
    ObjectNode schemas = components.putObject("schemas");
    Set<String> used = new HashSet<>();
    for (Map.Entry<String, JsonNode> def : source.path("definitions").properties()) {
      if (def.getKey().matches("[A-Za-z0-9._-]+")) {
        used.add(def.getKey());
      }
    }
    for (Map.Entry<String, JsonNode> def : source.path("definitions").properties()) {
      if (def.getKey().matches("[A-Za-z0-9._-]+")) {
        continue;
      }
      String name = validName(def.getKey(), used);
      {
        renamed.put(def.getKey(), name);
        warn(
            "definition '"
                + def.getKey()
                + "' is not a valid OpenAPI 3 component name: read as '"
                + name
                + "'");
      }
    }
    for (Map.Entry<String, JsonNode> def : source.path("definitions").properties()) {
      schemas.set(renamed.getOrDefault(def.getKey(), def.getKey()), schema(def.getValue()));
    }
    ObjectNode responses = components.putObject("responses");
    for (Map.Entry<String, JsonNode> r : source.path("responses").properties()) {
      responses.set(r.getKey(), response(r.getValue(), producesOf(NODES.missingNode())));
    }
    ObjectNode schemes = components.putObject("securitySchemes");
    for (Map.Entry<String, JsonNode> s : source.path("securityDefinitions").properties()) {
      schemes.set(s.getKey(), securityScheme(s.getKey(), s.getValue()));
    }
    if (source.has("security")) {
      out.set("security", source.get("security"));
    }
    ObjectNode paths = out.putObject("paths");
    for (Map.Entry<String, JsonNode> p : source.path("paths").properties()) {
      if (p.getKey().startsWith("x-")) {
        continue;
      }
      JsonNode item = p.getValue();
      if (item.has("$ref")) {
        warn("path " + p.getKey() + " is a $ref, which 2.0 readers rarely support: read as is");
        paths.set(p.getKey(), item);
        continue;
      }
      ObjectNode converted = paths.putObject(p.getKey());
      for (Map.Entry<String, JsonNode> field : item.properties()) {
        String method = field.getKey().toLowerCase(Locale.ROOT);
        if (DocumentLoader.METHODS.contains(method) && field.getValue().isObject()) {
          converted.set(
              field.getKey(),
              operation(
                  method.toUpperCase(Locale.ROOT) + " " + p.getKey(),
                  item.path("parameters"),
                  field.getValue()));
        }
      }
    }
    return out;
  }

  /** {@code schemes}, {@code host} and {@code basePath} as one server (the first scheme). */
  private void servers(ObjectNode out) {
    String host = source.path("host").asString("");
    String basePath = source.path("basePath").asString("");
    if (!basePath.isEmpty() && !basePath.startsWith("/")) {
      basePath = "/" + basePath;
    }
    List<String> schemes = new ArrayList<>();
    source.path("schemes").forEach(s -> schemes.add(s.asString("").toLowerCase(Locale.ROOT)));
    String scheme = schemes.stream().filter(s -> s.startsWith("http")).findFirst().orElse("");
    if (!schemes.isEmpty() && scheme.isEmpty()) {
      warn("schemes " + schemes + " has no http or https: the document gives no base URL");
      return;
    }
    String url;
    if (host.isEmpty()) {
      // 2.0: no host means the host that served the document; a relative URL says the same.
      url = basePath.isEmpty() ? "/" : basePath;
    } else {
      url = (scheme.isEmpty() ? "//" : scheme + "://") + host + basePath;
    }
    out.putArray("servers").addObject().put("url", url);
  }

  private ObjectNode operation(String where, JsonNode pathParams, JsonNode op) {
    ObjectNode out = NODES.objectNode();
    for (String key : List.of("operationId", "summary", "description", "tags", "deprecated")) {
      if (op.has(key)) {
        out.set(key, op.get(key));
      }
    }
    if (op.has("security")) {
      out.set("security", op.get("security"));
    }
    // Path-level then operation-level, the latter replacing the former by name and location.
    Map<String, JsonNode> params = new LinkedHashMap<>();
    for (JsonNode container : List.of(pathParams, op.path("parameters"))) {
      for (JsonNode raw : container) {
        JsonNode p = localParameter(where, raw);
        if (p == null) {
          continue;
        }
        params.remove(p.path("in").asString("") + ":" + p.path("name").asString(""));
        params.put(p.path("in").asString("") + ":" + p.path("name").asString(""), p);
      }
    }
    List<String> consumes = consumesOf(op);
    ArrayNode parameters = NODES.arrayNode();
    ObjectNode formSchema = null;
    ObjectNode formEncoding = NODES.objectNode();
    ArrayNode formRequired = NODES.arrayNode();
    boolean hasFile = false;
    for (JsonNode p : params.values()) {
      String in = p.path("in").asString("");
      String name = p.path("name").asString("");
      switch (in) {
        case "body" -> {
          ObjectNode body = out.putObject("requestBody");
          if (p.has("description")) {
            body.set("description", p.get("description"));
          }
          body.put("required", p.path("required").asBoolean(false));
          ObjectNode content = body.putObject("content");
          JsonNode schema =
              schema(p.path("schema").isMissingNode() ? NODES.objectNode() : p.get("schema"));
          List<String> media = consumes.isEmpty() ? List.of("application/json") : consumes;
          for (String m : media) {
            content.putObject(m).set("schema", schema);
          }
        }
        case "formData" -> {
          if (formSchema == null) {
            formSchema = NODES.objectNode().put("type", "object");
            formSchema.putObject("properties");
          }
          ObjectNode property = parameterSchema(p);
          if (p.has("description")) {
            property.set("description", p.get("description"));
          }
          hasFile |= "file".equals(p.path("type").asString(""));
          ((ObjectNode) formSchema.get("properties")).set(name, property);
          if (p.path("required").asBoolean(false)) {
            formRequired.add(name);
          }
          if (p.path("type").asString("").equals("array")) {
            ObjectNode encoding = NODES.objectNode();
            String format = p.path("collectionFormat").asString("csv");
            encoding.put("style", styleOf(format, "formData " + name + " of " + where));
            encoding.put("explode", format.equals("multi"));
            formEncoding.set(name, encoding);
          }
        }
        case "query", "header", "path" -> parameters.add(parameter(where, p, in));
        default ->
            warn(
                where
                    + ": parameter '"
                    + name
                    + "' in '"
                    + in
                    + "' is not a 2.0 location: skipped");
      }
    }
    if (formSchema != null) {
      if (out.has("requestBody")) {
        warn(where + ": both a body and formData parameters; the formData ones are dropped");
      } else {
        if (!formRequired.isEmpty()) {
          formSchema.set("required", formRequired);
        }
        // multipart when the operation says so or has a file; else urlencoded (2.0's default).
        String media =
            hasFile || (consumes.contains(MULTIPART) && !consumes.contains(FORM))
                ? MULTIPART
                : FORM;
        if (hasFile && consumes.contains(FORM) && !consumes.contains(MULTIPART)) {
          warn(where + ": a file parameter with consumes " + FORM + ": sent as " + MULTIPART);
        }
        ObjectNode body = out.putObject("requestBody");
        body.put("required", !formRequired.isEmpty());
        ObjectNode mediaNode = body.putObject("content").putObject(media);
        mediaNode.set("schema", formSchema);
        if (!formEncoding.isEmpty()) {
          mediaNode.set("encoding", formEncoding);
        }
      }
    }
    if (!parameters.isEmpty()) {
      out.set("parameters", parameters);
    }
    ObjectNode responses = out.putObject("responses");
    List<String> produces = producesOf(op);
    for (Map.Entry<String, JsonNode> r : op.path("responses").properties()) {
      if (r.getKey().startsWith("x-")) {
        continue;
      }
      JsonNode value = r.getValue();
      if (value.has("$ref")) {
        responses.putObject(r.getKey()).put("$ref", ref(value.get("$ref").asString()));
      } else {
        responses.set(r.getKey(), response(value, produces));
      }
    }
    return out;
  }

  /** The parameter itself, following a ref into the top-level {@code parameters}. */
  private JsonNode localParameter(String where, JsonNode raw) {
    JsonNode p = raw;
    for (int hops = 0; p.isObject() && p.path("$ref").isString(); hops++) {
      String ref = p.get("$ref").asString();
      if (!ref.startsWith("#/parameters/") || hops > Refs.MAX_HOPS) {
        warn(where + ": parameter $ref '" + ref + "' is not into #/parameters: skipped");
        return null;
      }
      String name =
          DocumentLoader.decodeFragment(ref.substring(1)).substring("/parameters/".length());
      p = source.path("parameters").path(name.replace("~1", "/").replace("~0", "~"));
      if (p.isMissingNode()) {
        throw CallError.of(ErrorCode.INVALID_INPUT, "$ref '" + ref + "' points to nothing");
      }
    }
    return p.isObject() ? p : null;
  }

  private ObjectNode parameter(String where, JsonNode p, String in) {
    ObjectNode out = NODES.objectNode();
    out.put("name", p.path("name").asString(""));
    out.put("in", in);
    if (p.has("description")) {
      out.set("description", p.get("description"));
    }
    out.put("required", in.equals("path") || p.path("required").asBoolean(false));
    if (p.path("type").asString("").equals("array")) {
      String format = p.path("collectionFormat").asString("csv");
      String what = in + " parameter '" + p.path("name").asString("") + "' of " + where;
      if (in.equals("query")) {
        out.put("style", styleOf(format, what));
        out.put("explode", format.equals("multi"));
      } else {
        if (!format.equals("csv")) {
          warn(
              what
                  + ": collectionFormat "
                  + format
                  + " has no 3.x form outside the query: sent comma-separated");
        }
        out.put("style", "simple");
        out.put("explode", false);
      }
    }
    out.set("schema", parameterSchema(p));
    return out;
  }

  /** collectionFormat as a style; tsv has no 3.x style and gets our own {@code tabDelimited}. */
  private String styleOf(String collectionFormat, String what) {
    return switch (collectionFormat) {
      case "csv", "multi" -> "form";
      case "ssv" -> "spaceDelimited";
      case "pipes" -> "pipeDelimited";
      case "tsv" -> "tabDelimited";
      default -> {
        warn(what + ": unknown collectionFormat '" + collectionFormat + "': sent comma-separated");
        yield "form";
      }
    };
  }

  /** A non-body parameter's schema keywords as a schema ({@code type: file} is binary). */
  private ObjectNode parameterSchema(JsonNode p) {
    ObjectNode schema = NODES.objectNode();
    for (Map.Entry<String, JsonNode> field : p.properties()) {
      if (!NOT_SCHEMA.contains(field.getKey()) && !field.getKey().startsWith("x-")) {
        schema.set(field.getKey(), field.getValue());
      }
    }
    if (p.path("x-nullable").asBoolean(false)) {
      schema.put("x-nullable", true);
    }
    return (ObjectNode) schema(schema);
  }

  private ObjectNode response(JsonNode r, List<String> produces) {
    ObjectNode out = NODES.objectNode();
    out.put("description", r.path("description").asString(""));
    if (r.has("schema")) {
      JsonNode schema = schema(r.get("schema"));
      ObjectNode content = out.putObject("content");
      for (String m : produces.isEmpty() ? List.of("application/json") : produces) {
        content.putObject(m).set("schema", schema);
      }
    }
    if (r.has("headers")) {
      ObjectNode headers = out.putObject("headers");
      for (Map.Entry<String, JsonNode> h : r.get("headers").properties()) {
        ObjectNode header = headers.putObject(h.getKey());
        if (h.getValue().has("description")) {
          header.set("description", h.getValue().get("description"));
        }
        header.set("schema", parameterSchema(h.getValue()));
      }
    }
    return out;
  }

  private JsonNode securityScheme(String name, JsonNode s) {
    ObjectNode out = NODES.objectNode();
    if (s.has("description")) {
      out.set("description", s.get("description"));
    }
    switch (s.path("type").asString("")) {
      case "basic" -> out.put("type", "http").put("scheme", "basic");
      case "apiKey" -> {
        out.put("type", "apiKey");
        out.set("name", s.path("name"));
        out.set("in", s.path("in"));
      }
      case "oauth2" -> {
        out.put("type", "oauth2");
        String flow =
            switch (s.path("flow").asString("")) {
              case "implicit" -> "implicit";
              case "password" -> "password";
              case "application" -> "clientCredentials";
              case "accessCode" -> "authorizationCode";
              default -> "";
            };
        if (flow.isEmpty()) {
          warn(
              "security definition '"
                  + name
                  + "': unknown oauth2 flow '"
                  + s.path("flow").asString("")
                  + "'");
          break;
        }
        ObjectNode f = out.putObject("flows").putObject(flow);
        if (s.has("authorizationUrl")) {
          f.set("authorizationUrl", s.get("authorizationUrl"));
        }
        if (s.has("tokenUrl")) {
          f.set("tokenUrl", s.get("tokenUrl"));
        }
        f.set("scopes", s.path("scopes").isObject() ? s.get("scopes") : NODES.objectNode());
      }
      default ->
          warn(
              "security definition '"
                  + name
                  + "' has unknown type '"
                  + s.path("type").asString("")
                  + "'");
    }
    return out;
  }

  /**
   * A 2.0 schema as a 3.0 one: local refs into {@code definitions} renamed, {@code x-nullable} as
   * {@code nullable}, {@code type: file} as a binary string, a discriminator name as an object.
   */
  private JsonNode schema(JsonNode schema) {
    if (schema.isArray()) {
      ArrayNode out = NODES.arrayNode();
      schema.forEach(item -> out.add(schema(item)));
      return out;
    }
    if (!schema.isObject()) {
      return schema;
    }
    ObjectNode out = NODES.objectNode();
    for (Map.Entry<String, JsonNode> field : schema.properties()) {
      String key = field.getKey();
      JsonNode value = field.getValue();
      switch (key) {
        case "$ref" -> out.put("$ref", value.isString() ? ref(value.asString()) : value.toString());
        case "x-nullable" -> {
          if (value.asBoolean(false)) {
            out.put("nullable", true);
          }
        }
        case "discriminator" -> {
          if (value.isString()) {
            out.putObject("discriminator").put("propertyName", value.asString());
          } else {
            out.set(key, value);
          }
        }
        case "type" -> {
          if (value.asString("").equals("file")) {
            out.put("type", "string");
            out.put("format", "binary");
          } else {
            out.set(key, value);
          }
        }
        // maps of schemas: keys are names, values schemas
        case "properties", "definitions", "patternProperties" -> {
          ObjectNode map = out.putObject(key);
          for (Map.Entry<String, JsonNode> entry : value.properties()) {
            map.set(entry.getKey(), schema(entry.getValue()));
          }
        }
        case "items", "additionalProperties", "not", "allOf", "anyOf", "oneOf" ->
            out.set(key, schema(value));
        case "collectionFormat" -> {} // of nested items: 2.0 serialisation, not a schema keyword
        default -> {
          if (!out.has(key)) {
            out.set(key, value);
          }
        }
      }
    }
    return out;
  }

  /** A local ref into 2.0's sections, pointed at the 3.0 sections it was moved to. */
  private String ref(String ref) {
    if (ref.startsWith("#/definitions/")) {
      String name =
          DocumentLoader.decodeFragment(ref.substring(1)).substring("/definitions/".length());
      name = name.replace("~1", "/").replace("~0", "~");
      String target = renamed.getOrDefault(name, name);
      return "#/components/schemas/" + target.replace("~", "~0").replace("/", "~1");
    }
    if (ref.startsWith("#/responses/")) {
      return "#/components/responses/" + ref.substring("#/responses/".length());
    }
    if (!ref.startsWith("#") && ref.contains("#/definitions/")) {
      warn("$ref '" + ref + "' into another file is read from that file as written (2.0)");
    }
    return ref;
  }

  /** A 3.x-valid component name ({@code ^[a-zA-Z0-9._-]+$}), unique among {@code used}. */
  private static String validName(String name, Set<String> used) {
    String valid = name.replaceAll("[^A-Za-z0-9._-]", "_");
    if (valid.isEmpty()) {
      valid = "_";
    }
    String unique = valid;
    for (int n = 2; !used.add(unique); n++) {
      unique = valid + "_" + n;
    }
    return unique;
  }

  private List<String> consumesOf(JsonNode op) {
    return mediaList(op.has("consumes") ? op.get("consumes") : source.path("consumes"));
  }

  private List<String> producesOf(JsonNode op) {
    return mediaList(op.has("produces") ? op.get("produces") : source.path("produces"));
  }

  private static List<String> mediaList(JsonNode list) {
    List<String> out = new ArrayList<>();
    list.forEach(
        m -> {
          String text = m.asString("").trim();
          if (!text.isEmpty()) {
            out.add(text.split(";", 2)[0].trim().toLowerCase(Locale.ROOT));
          }
        });
    return out;
  }

  private void warn(String warning) {
    warnings.add(warning);
  }
}
