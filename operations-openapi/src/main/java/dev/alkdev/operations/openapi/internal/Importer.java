package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.AsyncOperationHandler;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.SubscriptionHandler;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.openapi.OpenApiImport;
import dev.alkdev.operations.openapi.internal.DocumentLoader.Source;
import dev.alkdev.operations.openapi.internal.Refs.Located;
import dev.alkdev.operations.schema.FromSchema;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Turns a parsed document into operations (rules in docs/openapi.md). */
public final class Importer {
  private static final Logger LOG = LoggerFactory.getLogger(Importer.class);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /**
   * The methods HTTP defines as idempotent (RFC 9110, 9.2.2): the safe ones and PUT and DELETE.
   * Their operations may be retried on another node after a failure mid-call.
   */
  static final Set<String> IDEMPOTENT_METHODS =
      Set.of("get", "head", "options", "trace", "put", "delete");

  private final DocumentLoader loader;
  private final JsonNode document;
  private final HttpServiceConfig config;
  private final List<String> earlyWarnings;
  private final EventStreamOpener events;
  private final Optional<JettyClient> jetty;
  private final Refs refs;
  private final List<String> warnings = new ArrayList<>();
  private final Map<JsonNode, Schema> compiledSchemas = new java.util.HashMap<>();

  /**
   * One collector of referenced schemas for the whole document (D69): a component is copied once,
   * and every operation's schema refers to it instead of carrying its own copy.
   */
  private Refs.SchemaScope components;

  private FromSchema.Shared shared;
  private FromSchema.Dialect dialect;

  private Importer(
      DocumentLoader loader,
      JsonNode document,
      HttpServiceConfig config,
      EventStreamOpener events,
      JettyClient jetty) {
    this.loader = loader;
    this.config = config;
    this.events = events;
    // A JDK client the user gave is theirs to keep using, for every call (D70).
    this.jetty = config.httpClient().isPresent() ? Optional.empty() : Optional.of(jetty);
    List<String> early = new ArrayList<>();
    // Swagger 2.0 is read into the 3.0 shape first (D50); the rest of the import is the same.
    this.document =
        document.isObject() && document.has("swagger") && !document.has("openapi")
            ? Swagger2.convert(document, early)
            : document;
    this.earlyWarnings = early;
    this.refs = new Refs(loader, this.document);
  }

  /** Imports {@code document}, read from {@code loader.root()}. */
  public static OpenApiImport run(
      DocumentLoader loader,
      JsonNode document,
      HttpServiceConfig config,
      EventStreamOpener events) {
    return run(loader, document, config, events, JettyClient.SHARED);
  }

  /** {@link #run(DocumentLoader, JsonNode, HttpServiceConfig, EventStreamOpener)} on a client. */
  public static OpenApiImport run(
      DocumentLoader loader,
      JsonNode document,
      HttpServiceConfig config,
      EventStreamOpener events,
      JettyClient jetty) {
    return new Importer(loader, document, config, events, jetty).run();
  }

  private OpenApiImport run() {
    dialect = checkVersion();
    components = refs.scope();
    shared = FromSchema.shared(components.defs(), dialect, SchemaOptions.defaults());
    earlyWarnings.forEach(this::warn);
    BaseUrl baseUrl = baseUrl();
    if (baseUrl.uri().isEmpty()) {
      // Listing and describing need no URL; calls say what is missing when they are made.
      warn(
          "no base URL ("
              + baseUrl.problem()
              + "): the operations list, but calls fail until one is set: "
              + BaseUrl.HOW_TO_SET);
    }
    // Built on first call, not at import: an import that is only listed starts no client threads.
    // The JDK client reads SSE streams (operations-sse is written on it), and is the user's own
    // when they gave one; unary calls go through Jetty's otherwise.
    Supplier<HttpClient> client =
        config.httpClient().isPresent() ? config.httpClient()::get : new LazyClient(config);
    List<OperationDefinition> operations = new ArrayList<>();
    Set<String> usedNames = new HashSet<>();
    JsonNode paths = document.path("paths");
    if (!paths.isObject()) {
      warn("document has no paths object: no operations");
      return new OpenApiImport(operations, warnings);
    }
    for (Map.Entry<String, JsonNode> pathEntry : paths.properties()) {
      String path = pathEntry.getKey();
      Located item = refs.deref(new Located(pathEntry.getValue(), loader.root()));
      if (!item.node().isObject()) {
        warn("path " + path + " is not an object: skipped");
        continue;
      }
      for (Map.Entry<String, JsonNode> field : item.node().properties()) {
        String method = field.getKey().toLowerCase(Locale.ROOT);
        if (!DocumentLoader.METHODS.contains(method) || !field.getValue().isObject()) {
          continue;
        }
        String name =
            uniqueName(operationName(field.getValue(), method, path), usedNames, method, path);
        operations.add(
            operation(
                name,
                method,
                path,
                item,
                new Located(field.getValue(), item.source()),
                baseUrl,
                client));
      }
    }
    return new OpenApiImport(operations, warnings);
  }

  private FromSchema.Dialect checkVersion() {
    if (!document.isObject()) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "OpenAPI document is not a JSON/YAML object");
    }
    String version = document.path("openapi").asString("");
    if (version.startsWith("3.0")) {
      return FromSchema.Dialect.OPENAPI_3_0;
    }
    if (version.startsWith("3.1") || version.startsWith("3.2")) {
      return FromSchema.Dialect.OPENAPI_3_1;
    }
    throw CallError.of(
        ErrorCode.INVALID_INPUT,
        "Not an OpenAPI 3.0/3.1 document: \"openapi\" is "
            + (version.isEmpty() ? "missing" : "'" + version + "'"));
  }

  /**
   * The configured base URL, else the document's first server with its variables filled, else
   * OpenAPI's default of {@code /} against the document's URL. A document with no usable server
   * gives a missing URL (calls fail, listing works); a server variable the caller set to a value
   * its enum does not allow is the caller's mistake and fails the import.
   */
  private BaseUrl baseUrl() {
    if (config.baseUrl().isPresent()) {
      return BaseUrl.of(config.baseUrl().get());
    }
    JsonNode server = document.path("servers").path(0);
    if (!server.isMissingNode() && (!server.isObject() || !server.path("url").isString())) {
      return BaseUrl.missing("the document's first servers entry has no url");
    }
    // OpenAPI: no servers (or an empty list) means one server at "/", relative to the document.
    boolean given = !server.isMissingNode();
    String url = given ? server.get("url").asString() : "/";
    JsonNode variables = server.path("variables");
    for (Map.Entry<String, JsonNode> variable : variables.properties()) {
      String name = variable.getKey();
      String value =
          config
              .serverVariables()
              .getOrDefault(name, variable.getValue().path("default").asString(""));
      JsonNode allowed = variable.getValue().path("enum");
      if (allowed.isArray() && !allowed.isEmpty()) {
        boolean ok = false;
        for (JsonNode option : allowed) {
          ok |= option.asString("").equals(value);
        }
        if (!ok) {
          throw CallError.of(
              ErrorCode.INVALID_INPUT,
              "Server variable '" + name + "' = '" + value + "' is not one of " + allowed);
        }
      }
      url = url.replace("{" + name + "}", value);
    }
    URI uri;
    try {
      uri = new URI(url);
      if (!uri.isAbsolute()) {
        if (loader.root().kind() != Source.Kind.URL) {
          return BaseUrl.missing(
              given
                  ? "the server URL '" + url + "' is relative and the document has no URL"
                  : "the document has no servers entry and no URL of its own");
        }
        uri = new URI(loader.root().location()).resolve(uri);
      }
    } catch (java.net.URISyntaxException e) {
      return BaseUrl.missing("the server URL '" + url + "' is not a valid URL");
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      return BaseUrl.missing("the server URL '" + uri + "' is not http(s)");
    }
    return BaseUrl.of(uri);
  }

  /**
   * operationId made valid, else method + path: {@code GET /users/{id}} is {@code get_users_by_id}.
   */
  static String operationName(JsonNode operation, String method, String path) {
    String operationId = operation.path("operationId").asString("");
    if (!operationId.isBlank()) {
      return clean(operationId);
    }
    StringBuilder name = new StringBuilder(method);
    for (String segment : path.split("/")) {
      if (segment.isEmpty()) {
        continue;
      }
      name.append('_');
      if (segment.startsWith("{") && segment.endsWith("}")) {
        name.append("by_").append(segment, 1, segment.length() - 1);
      } else {
        name.append(segment);
      }
    }
    if (name.length() == method.length()) {
      name.append("_root");
    }
    return clean(name.toString());
  }

  private static String clean(String raw) {
    String name = raw.replaceAll("[^A-Za-z0-9_-]+", "_").replaceAll("_{2,}", "_");
    name = name.replaceAll("^_+|_+$", "");
    if (name.isEmpty()) {
      name = "op";
    }
    if (name.length() <= MAX_NAME) {
      return name;
    }
    // Cut, with a hash of the whole name: two long names that share their first 120 characters
    // (53 renames in 4 public documents came from a plain cut) stay apart, the same way each time.
    return name.substring(0, MAX_NAME - 9) + "_" + hash8(raw);
  }

  /** The longest operation name; longer ones are cut and given a hash suffix. */
  static final int MAX_NAME = 120;

  private static String hash8(String text) {
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(digest, 0, 4);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private String uniqueName(String name, Set<String> used, String method, String path) {
    String unique = name;
    for (int n = 2; !used.add(unique); n++) {
      unique = name + "_" + n;
    }
    if (!unique.equals(name)) {
      warn(
          "operation id '"
              + name
              + "' is used more than once; "
              + method.toUpperCase(Locale.ROOT)
              + " "
              + path
              + " became '"
              + unique
              + "'");
    }
    return unique;
  }

  /** The extension with which an operation says whether its event stream is resumed. */
  static final String SSE_RECONNECT = "x-ops-sse-reconnect";

  /**
   * Whether the operation's event stream is connected to again when its server ends the response:
   * the operation's {@code x-ops-sse-reconnect}, else the config's rule (not by default).
   */
  private boolean reconnectOnClose(String name, JsonNode operation) {
    JsonNode given = operation.path(SSE_RECONNECT);
    if (given.isBoolean()) {
      return given.asBoolean();
    }
    if (!given.isMissingNode()) {
      warn(name + ": " + SSE_RECONNECT + " is not true or false: ignored");
    }
    return config.sseReconnectOnClose();
  }

  private OperationDefinition operation(
      String name,
      String method,
      String path,
      Located pathItem,
      Located operation,
      BaseUrl baseUrl,
      Supplier<HttpClient> client) {
    Refs.SchemaScope inputScope = components;
    ObjectNode properties = NODES.objectNode();
    ArrayNode required = NODES.arrayNode();
    Map<String, HttpOperation.Param> params = new LinkedHashMap<>();
    Map<String, JsonNode> schemas = new LinkedHashMap<>();
    Map<String, Boolean> requiredness = new LinkedHashMap<>();
    for (Located container : List.of(pathItem, operation)) {
      for (JsonNode raw : container.node().path("parameters")) {
        Located parameter = refs.deref(new Located(raw, container.source()));
        JsonNode p = parameter.node();
        String pname = p.path("name").asString("");
        String in = p.path("in").asString("");
        if (pname.isEmpty() || !Set.of("path", "query", "header", "cookie").contains(in)) {
          warn(name + ": parameter without a valid name/in skipped");
          continue;
        }
        if (in.equals("header")
            && Set.of("accept", "content-type", "authorization")
                .contains(pname.toLowerCase(Locale.ROOT))) {
          continue; // OpenAPI says these header parameters are ignored
        }
        String style =
            p.path("style").asString(in.equals("query") || in.equals("cookie") ? "form" : "simple");
        boolean explode = p.path("explode").asBoolean(style.equals("form"));
        String key = in + ":" + pname;
        params.remove(key); // operation-level overrides path-level
        params.put(key, new HttpOperation.Param(pname, in, style, explode));
        JsonNode schema = p.path("schema");
        if (!schema.isObject() && !schema.isBoolean()) {
          JsonNode content = p.path("content");
          schema =
              content.isObject() && !content.isEmpty()
                  ? content.iterator().next().path("schema")
                  : NODES.objectNode();
        }
        JsonNode rewritten =
            inputScope.rewrite(
                schema.isMissingNode() ? NODES.objectNode() : schema, parameter.source());
        if (rewritten.isObject() && p.has("description") && !rewritten.has("description")) {
          ((ObjectNode) rewritten).set("description", p.get("description"));
        }
        schemas.put(key, rewritten);
        requiredness.put(key, in.equals("path") || p.path("required").asBoolean(false));
      }
    }
    Set<String> propertyNames = new HashSet<>();
    for (Map.Entry<String, HttpOperation.Param> entry : params.entrySet()) {
      String pname = entry.getValue().name();
      if (!propertyNames.add(pname) || pname.equals("body")) {
        warn(
            name
                + ": parameter '"
                + pname
                + "' ("
                + entry.getValue().in()
                + ") clashes with another input property; it shares the value");
        continue;
      }
      properties.set(pname, schemas.get(entry.getKey()));
      if (requiredness.get(entry.getKey())) {
        required.add(pname);
      }
    }
    String bodyMediaType = "";
    Map<String, FormBodies.Field> formFields = Map.of();
    JsonNode requestBodyRaw = operation.node().path("requestBody");
    if (requestBodyRaw.isObject()) {
      Located body = refs.deref(new Located(requestBodyRaw, operation.source()));
      Optional<Map.Entry<String, JsonNode>> media = pickMedia(body.node().path("content"), true);
      if (media.isPresent()) {
        bodyMediaType = media.get().getKey();
        JsonNode schema = media.get().getValue().path("schema");
        if (FormBodies.isForm(bodyMediaType)) {
          formFields = formFields(new Located(schema, body.source()), media.get().getValue());
        }
        properties.set(
            "body",
            inputScope.rewrite(
                schema.isMissingNode() ? NODES.objectNode() : schema, body.source()));
        if (body.node().path("required").asBoolean(false)) {
          required.add("body");
        }
      }
    }
    ObjectNode input = NODES.objectNode();
    input.put("type", "object");
    input.set("properties", properties);
    if (!required.isEmpty()) {
      input.set("required", required);
    }

    OperationType type = method.equals("get") ? OperationType.QUERY : OperationType.MUTATION;
    Schema output = Schema.unknown();
    JsonNode responses = operation.node().path("responses");
    Located success = successResponse(responses, operation.source());
    Located stream = streamResponse(responses, operation.source());
    if (stream != null) {
      type = OperationType.SUBSCRIPTION;
      JsonNode item = stream.node().path("content").path("text/event-stream").path("itemSchema");
      if (item.isObject() || item.isBoolean()) {
        output = compile(item, stream.source());
      }
    } else if (success != null) {
      Optional<Map.Entry<String, JsonNode>> media =
          pickMedia(success.node().path("content"), false);
      if (media.isPresent() && media.get().getValue().has("schema")) {
        output = compile(media.get().getValue().get("schema"), success.source());
      }
    }
    String description =
        operation
            .node()
            .path("summary")
            .asString(operation.node().path("description").asString(""));
    OperationSpec spec =
        OperationSpec.builder(config.namespace(), name)
            .type(type)
            .idempotent(IDEMPOTENT_METHODS.contains(method))
            .description(description)
            .inputSchema(compiled(input))
            .outputSchema(output)
            .build();
    HttpOperation call =
        new HttpOperation(
            spec.id(),
            method,
            path,
            new ArrayList<>(params.values()),
            bodyMediaType,
            formFields,
            config,
            baseUrl,
            client,
            jetty,
            events,
            reconnectOnClose(name, operation.node()));
    Handler handler =
        type == OperationType.SUBSCRIPTION
            ? Handler.publisher((SubscriptionHandler) call::subscribe)
            : Handler.async((AsyncOperationHandler) call::call);
    return new OperationDefinition(spec, handler);
  }

  /**
   * The fields of a form body: its schema's properties (through refs and allOf), binary ones
   * marked, with the style, explode and content type of the media type's {@code encoding}.
   */
  private Map<String, FormBodies.Field> formFields(Located schema, JsonNode mediaType) {
    Map<String, FormBodies.Field> fields = new LinkedHashMap<>();
    collectFormFields(refs.deref(schema), mediaType.path("encoding"), fields, 0);
    return fields;
  }

  private void collectFormFields(
      Located schema, JsonNode encoding, Map<String, FormBodies.Field> fields, int depth) {
    if (depth > Refs.MAX_HOPS || !schema.node().isObject()) {
      return;
    }
    for (JsonNode part : schema.node().path("allOf")) {
      collectFormFields(
          refs.deref(new Located(part, schema.source())), encoding, fields, depth + 1);
    }
    for (Map.Entry<String, JsonNode> property : schema.node().path("properties").properties()) {
      JsonNode p = refs.deref(new Located(property.getValue(), schema.source())).node();
      JsonNode item = p.path("type").asString("").equals("array") ? p.path("items") : p;
      if (item.has("$ref")) {
        item = refs.deref(new Located(item, schema.source())).node();
      }
      boolean binary = item.path("format").asString("").equals("binary");
      JsonNode e = encoding.path(property.getKey());
      String style = e.path("style").asString("form");
      fields.put(
          property.getKey(),
          new FormBodies.Field(
              property.getKey(),
              binary,
              style,
              e.path("explode").asBoolean(style.equals("form")),
              e.path("contentType").isString()
                  ? Optional.of(e.get("contentType").asString())
                  : Optional.empty()));
    }
  }

  private Schema compile(JsonNode schema, Source source) {
    return compiled(components.rewrite(schema, source));
  }

  /**
   * Equal schemas (many operations share a response or parameter set) are compiled once, on first
   * use, in the document's shared form: their refs point into the components every operation shares
   * (D69).
   */
  private Schema compiled(JsonNode schema) {
    return compiledSchemas.computeIfAbsent(schema, shared::schema);
  }

  /** The default JDK client, for SSE streams, built once on first use. */
  private static final class LazyClient implements Supplier<HttpClient> {
    private final HttpServiceConfig config;
    private volatile HttpClient client;

    LazyClient(HttpServiceConfig config) {
      this.config = config;
    }

    @Override
    public HttpClient get() {
      HttpClient result = client;
      if (result == null) {
        synchronized (this) {
          result = client;
          if (result == null) {
            result =
                HttpClient.newBuilder()
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .connectTimeout(config.timeout())
                    .build();
            client = result;
          }
        }
      }
      return result;
    }
  }

  /** 200, else 201, else the first 2xx (or 2XX) in document order. */
  private Located successResponse(JsonNode responses, Source source) {
    for (String code : List.of("200", "201")) {
      if (responses.has(code)) {
        return refs.deref(new Located(responses.get(code), source));
      }
    }
    for (Map.Entry<String, JsonNode> entry : responses.properties()) {
      if (entry.getKey().startsWith("2")) {
        return refs.deref(new Located(entry.getValue(), source));
      }
    }
    return null;
  }

  private Located streamResponse(JsonNode responses, Source source) {
    for (Map.Entry<String, JsonNode> entry : responses.properties()) {
      if (entry.getKey().startsWith("2")) {
        Located response = refs.deref(new Located(entry.getValue(), source));
        if (response.node().path("content").has("text/event-stream")) {
          return response;
        }
      }
    }
    return null;
  }

  /** The JSON media type (application/json or +json), else for bodies the first one. */
  private static Optional<Map.Entry<String, JsonNode>> pickMedia(
      JsonNode content, boolean anyFallback) {
    if (!content.isObject() || content.isEmpty()) {
      return Optional.empty();
    }
    for (Map.Entry<String, JsonNode> entry : content.properties()) {
      if (HttpOperation.isJson(entry.getKey())) {
        return Optional.of(entry);
      }
    }
    return anyFallback ? Optional.of(content.properties().iterator().next()) : Optional.empty();
  }

  private void warn(String warning) {
    warnings.add(warning);
    LOG.warn("OpenAPI import: {}", warning);
  }
}
