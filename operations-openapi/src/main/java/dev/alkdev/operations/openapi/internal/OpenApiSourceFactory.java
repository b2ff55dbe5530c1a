package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.openapi.HttpAuth;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.openapi.OpenApiOptions;
import dev.alkdev.operations.source.OperationSource;
import dev.alkdev.operations.source.SourceEntry;
import dev.alkdev.operations.source.SourceFactory;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.JsonNode;

/**
 * Sources of kind {@code openapi}: one OpenAPI document per entry (the seeds' {@code FromOpenAPI}
 * with its {@code HTTPServiceConfig}), imported on a background thread with its operations in the
 * entry's namespace. Settings:
 *
 * <ul>
 *   <li>{@code location} (required): a file path (relative to the entry's base directory) or an
 *       http(s) URL, JSON or YAML;
 *   <li>{@code baseUrl}: where calls go; else the document's first server;
 *   <li>{@code auth}: {@code {bearer: {tokenEnv}}}, {@code {apiKey: {name, in: header|query,
 *       valueEnv}}} or {@code {basic: {usernameEnv, passwordEnv}}}: the names of the environment
 *       variables that hold the secrets, read from the entry's environment when the source is made.
 * </ul>
 *
 * <p>Found through {@link java.util.ServiceLoader}; public only for that.
 */
public final class OpenApiSourceFactory implements SourceFactory {

  /** The kind this factory makes. */
  public static final String KIND = "openapi";

  private static final Set<String> KEYS = Set.of("location", "baseUrl", "auth");

  @Override
  public Optional<OperationSource> create(SourceEntry entry) {
    if (!KIND.equals(entry.kind())) {
      return Optional.empty();
    }
    JsonNode settings = entry.settings();
    for (String key : settings.propertyNames()) {
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException(
            "unknown setting " + key + "; expected location, baseUrl or auth");
      }
    }
    String location =
        text(settings, "location", "location")
            .orElseThrow(() -> new IllegalArgumentException("location is required (a string)"));
    HttpServiceConfig.Builder service = HttpServiceConfig.builder(entry.name());
    text(settings, "baseUrl", "baseUrl").ifPresent(service::baseUrl);
    if (settings.has("auth")) {
      auth(settings.get("auth"), entry, service);
    }
    HttpServiceConfig config = service.build();
    String lower = location.toLowerCase(Locale.ROOT);
    boolean remote = lower.startsWith("http://") || lower.startsWith("https://");
    String resolved = remote ? location : entry.baseDirectory().resolve(location).toString();
    return Optional.of(new Source(entry.name(), resolved, remote, config));
  }

  /**
   * Credentials as the HTTP adapter takes them: bearer, basic and an API key in a header or the
   * query as its auth modes, whose values are checked for CR, LF and NUL before anything is sent.
   */
  private static void auth(JsonNode auth, SourceEntry entry, HttpServiceConfig.Builder service) {
    if (!auth.isObject() || auth.size() != 1) {
      throw new IllegalArgumentException("auth must have exactly one of bearer, apiKey or basic");
    }
    Map.Entry<String, JsonNode> only = auth.properties().iterator().next();
    String at = "auth." + only.getKey();
    JsonNode body = only.getValue();
    if (!body.isObject()) {
      throw new IllegalArgumentException(at + " must be an object");
    }
    switch (only.getKey()) {
      case "bearer" -> service.auth(HttpAuth.bearer(secret(entry, body, at, "tokenEnv")));
      case "apiKey" -> {
        String in = text(body, "in", at + ".in").orElse("header").toUpperCase(Locale.ROOT);
        HttpAuth.ApiKeyIn where;
        try {
          where = HttpAuth.ApiKeyIn.valueOf(in);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(at + ".in must be header or query, was " + in, e);
        }
        String name =
            text(body, "name", at + ".name")
                .orElseThrow(() -> new IllegalArgumentException(at + ".name is required"));
        service.auth(HttpAuth.apiKey(name, where, secret(entry, body, at, "valueEnv")));
      }
      case "basic" ->
          service.auth(
              HttpAuth.basic(
                  secret(entry, body, at, "usernameEnv"), secret(entry, body, at, "passwordEnv")));
      default ->
          throw new IllegalArgumentException(
              "unknown auth " + only.getKey() + "; use bearer, apiKey or basic");
    }
  }

  /** The secret in the environment variable that {@code key} names. */
  private static String secret(SourceEntry entry, JsonNode body, String at, String key) {
    String variable =
        text(body, key, at + "." + key)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        at + "." + key + " is required: the name of an environment variable"));
    return entry.variable(variable);
  }

  private static Optional<String> text(JsonNode node, String key, String where) {
    JsonNode value = node.path(key);
    if (value.isMissingNode() || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isString() || value.stringValue().isBlank()) {
      throw new IllegalArgumentException(where + " must be a non-empty string");
    }
    return Optional.of(value.stringValue());
  }

  private static final class Source implements OperationSource {
    private final String name;
    private final String location;
    private final boolean remote;
    private final HttpServiceConfig config;
    private final JettyClient client;

    Source(String name, String location, boolean remote, HttpServiceConfig config) {
      this.name = name;
      this.location = location;
      this.remote = remote;
      this.config = config;
      this.client = new JettyClient("ops-openapi-http-" + name);
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String kind() {
      return "OpenAPI";
    }

    @Override
    public CompletableFuture<Void> load(OperationRegistry registry) {
      return CompletableFuture.runAsync(
          () -> {
            // FromOpenApi's fromUrl and fromFile, on this source's own client.
            DocumentLoader loader =
                new DocumentLoader(
                    OpenApiOptions.defaults(),
                    new DocumentLoader.Source(
                        remote ? DocumentLoader.Source.Kind.URL : DocumentLoader.Source.Kind.FILE,
                        location));
            Importer.run(
                    loader,
                    loader.parse(loader.readRoot(), location),
                    config,
                    SseStreams.OPENER,
                    client)
                .registerAll(registry);
          },
          task -> {
            // A daemon thread per load, so a stuck download never keeps the JVM alive.
            Thread thread = new Thread(task, "openapi-source-" + name);
            thread.setDaemon(true);
            thread.start();
          });
    }

    @Override
    public void close() {
      // Its calls' connections and threads (SSE streams are ended by their calls' cancellation).
      client.close();
    }
  }
}
