package dev.alkdev.operations.openapi;

import dev.alkdev.operations.openapi.internal.DocumentLoader;
import dev.alkdev.operations.openapi.internal.DocumentLoader.Source;
import dev.alkdev.operations.openapi.internal.EventStreamOpener;
import dev.alkdev.operations.openapi.internal.Importer;
import dev.alkdev.operations.openapi.internal.SseStreams;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Operations from an OpenAPI 3.0/3.1 document: the seeds' {@code FromOpenAPI}, {@code
 * FromOpenAPIFile} and {@code FromOpenAPIUrl}. Each returns the operations (one per path and
 * method) with handlers that call the service over Jetty's HTTP client (SSE streams, and every call
 * when {@link HttpServiceConfig#httpClient()} is set, over the JDK's); register them with {@link
 * OpenApiImport#registerAll}. Imports made here share one client, whose daemon threads start with
 * the first call; a source made by the {@code openapi} source factory has its own, closed with it.
 * Errors are {@code CallError}s: INVALID_INPUT for a document that is not OpenAPI 3 (2.0 included),
 * a missing or refused {@code $ref}; RESOURCE_EXHAUSTED over the size cap. The rules are in
 * docs/openapi.md.
 */
public final class FromOpenApi {
  private static final EventStreamOpener EVENTS = SseStreams.OPENER;

  private FromOpenApi() {}

  /** From document text (JSON or YAML). External {@code $ref}s resolve only to allowed URLs. */
  public static OpenApiImport fromString(String document, HttpServiceConfig config) {
    return fromString(document, config, OpenApiOptions.defaults());
  }

  public static OpenApiImport fromString(
      String document, HttpServiceConfig config, OpenApiOptions options) {
    Objects.requireNonNull(document, "document");
    DocumentLoader loader = new DocumentLoader(options, new Source(Source.Kind.STRING, ""));
    byte[] bytes = document.getBytes(StandardCharsets.UTF_8);
    return Importer.run(loader, loader.parse(bytes, "(string)"), config, EVENTS);
  }

  /** From a file; external {@code $ref}s may name files in its folder (or below). */
  public static OpenApiImport fromFile(Path file, HttpServiceConfig config) {
    return fromFile(file, config, OpenApiOptions.defaults());
  }

  public static OpenApiImport fromFile(
      Path file, HttpServiceConfig config, OpenApiOptions options) {
    return fromFile(file.toString(), config, options);
  }

  /** From a file of {@link OpenApiOptions#fs()} (the seeds' OpenAPIFS). */
  public static OpenApiImport fromFile(
      String path, HttpServiceConfig config, OpenApiOptions options) {
    Objects.requireNonNull(path, "path");
    DocumentLoader loader = new DocumentLoader(options, new Source(Source.Kind.FILE, path));
    return Importer.run(loader, loader.parse(loader.readRoot(), path), config, EVENTS);
  }

  /**
   * From a URL, fetched with {@link OpenApiOptions#fetchClient()} within {@link
   * OpenApiOptions#fetchTimeout()} and the size cap. Relative server URLs resolve against it.
   */
  public static OpenApiImport fromUrl(URI url, HttpServiceConfig config, OpenApiOptions options) {
    Objects.requireNonNull(url, "url");
    DocumentLoader loader =
        new DocumentLoader(options, new Source(Source.Kind.URL, url.toString()));
    return Importer.run(loader, loader.parse(loader.readRoot(), url.toString()), config, EVENTS);
  }
}
