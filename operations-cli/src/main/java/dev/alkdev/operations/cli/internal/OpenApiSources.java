package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.cli.OpenApiSourceFactory;
import dev.alkdev.operations.cli.OperationSource;
import dev.alkdev.operations.cli.config.AuthConfig;
import dev.alkdev.operations.cli.config.OpenApiSourceConfig;
import dev.alkdev.operations.openapi.FromOpenApi;
import dev.alkdev.operations.openapi.HttpAuth;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.openapi.OpenApiImport;
import dev.alkdev.operations.openapi.OpenApiOptions;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * OpenAPI entries of the configuration as sources: the document is read (file or URL) and imported
 * with {@link FromOpenApi} on a background thread, its operations registered in the entry's
 * namespace. Secrets come from the environment through {@link AuthConfig#resolve}.
 */
public final class OpenApiSources implements OpenApiSourceFactory {

  @Override
  public OperationSource create(OpenApiSourceConfig config, Map<String, String> environment) {
    return new Source(config, Map.copyOf(environment));
  }

  private static final class Source implements OperationSource {
    private final OpenApiSourceConfig config;
    private final Map<String, String> environment;

    Source(OpenApiSourceConfig config, Map<String, String> environment) {
      this.config = config;
      this.environment = environment;
    }

    @Override
    public String name() {
      return config.namespace();
    }

    @Override
    public String kind() {
      return "OpenAPI";
    }

    @Override
    public CompletableFuture<Void> load(OperationRegistry registry) {
      return CompletableFuture.runAsync(() -> importInto(registry), SourceThreads.EXECUTOR);
    }

    private void importInto(OperationRegistry registry) {
      HttpServiceConfig.Builder service = HttpServiceConfig.builder(config.namespace());
      config.baseUrl().ifPresent(service::baseUrl);
      config.auth().ifPresent(auth -> applyAuth(auth.resolve(environment), service));
      HttpServiceConfig serviceConfig = service.build();
      String location = config.location();
      String lower = location.toLowerCase(Locale.ROOT);
      OpenApiImport imported =
          lower.startsWith("http://") || lower.startsWith("https://")
              ? FromOpenApi.fromUrl(URI.create(location), serviceConfig, OpenApiOptions.defaults())
              : FromOpenApi.fromFile(Path.of(location), serviceConfig);
      imported.registerAll(registry);
    }

    /**
     * Credentials as the HTTP adapter takes them: an API key in the query as its own auth mode (so
     * it is added to every call's query string), headers (bearer, basic, API key in a header) as
     * default headers, which the adapter checks for CR, LF and NUL before anything is sent.
     */
    private static void applyAuth(AuthConfig.Credentials credentials, HttpServiceConfig.Builder b) {
      credentials.headers().forEach(b::header);
      credentials
          .queryParameters()
          .forEach((name, value) -> b.auth(HttpAuth.apiKey(name, HttpAuth.ApiKeyIn.QUERY, value)));
    }

    @Override
    public void close() {
      // The import holds no connection; the adapter's HttpClient is created per import and its
      // idle connections close with it.
    }
  }
}
