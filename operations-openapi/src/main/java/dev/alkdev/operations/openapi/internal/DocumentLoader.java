package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.openapi.OpenApiOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads documents (JSON or YAML) from a string, a file or an allowed URL, and resolves the location
 * of external {@code $ref}s under the rules of docs/openapi.md: files beside the root document
 * only, URLs only when on the allow-list.
 */
public final class DocumentLoader {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final YAMLMapper YAML = YAMLMapper.builder().build();

  /** Where a document came from; {@code location} is a path, a URL or empty for a string. */
  public record Source(Kind kind, String location) {
    public enum Kind {
      STRING,
      FILE,
      URL
    }
  }

  private final OpenApiOptions options;
  private final Source root;
  private final Path rootDir;
  private final Map<String, JsonNode> cache = new HashMap<>();

  public DocumentLoader(OpenApiOptions options, Source root) {
    this.options = options;
    this.root = root;
    this.rootDir =
        root.kind() == Source.Kind.FILE ? parentOf(Path.of(root.location()).normalize()) : null;
  }

  private static Path parentOf(Path file) {
    Path parent = file.getParent();
    return parent == null ? Path.of("") : parent;
  }

  public Source root() {
    return root;
  }

  /** What to do about the size cap, added to its refusal. */
  private static final String CAP_HINT =
      " bytes (OpenApiOptions.maxDocumentBytes; raise it with withMaxDocumentBytes if the document"
          + " is trusted)";

  /** Parses text as JSON when it starts with '{' or '[', else as YAML; checks the size cap. */
  public JsonNode parse(byte[] bytes, String what) {
    if (bytes.length > options.maxDocumentBytes()) {
      throw CallError.of(
          ErrorCode.RESOURCE_EXHAUSTED,
          "OpenAPI document "
              + what
              + " is "
              + bytes.length
              + " bytes, over the cap of "
              + options.maxDocumentBytes()
              + CAP_HINT);
    }
    int i = 0;
    if (bytes.length >= 3 && (bytes[0] & 0xff) == 0xEF && (bytes[1] & 0xff) == 0xBB) {
      i = 3; // UTF-8 byte order mark
    }
    while (i < bytes.length && Character.isWhitespace(bytes[i])) {
      i++;
    }
    boolean json = i < bytes.length && (bytes[i] == '{' || bytes[i] == '[');
    try {
      JsonNode node =
          json
              ? JSON.readTree(bytes, i, bytes.length - i)
              : YAML.readTree(new String(bytes, i, bytes.length - i, StandardCharsets.UTF_8));
      if (node == null || node.isMissingNode()) {
        throw CallError.of(ErrorCode.INVALID_INPUT, "OpenAPI document " + what + " is empty");
      }
      return node;
    } catch (JacksonException e) {
      throw CallError.of(
          ErrorCode.INVALID_INPUT,
          "OpenAPI document " + what + " is neither valid JSON nor YAML: " + e.getOriginalMessage(),
          e);
    }
  }

  /** Reads the root document's bytes. */
  public byte[] readRoot() {
    return switch (root.kind()) {
      case FILE -> readFile(root.location());
      case URL -> fetch(URI.create(root.location()));
      case STRING -> throw new IllegalStateException("string documents have no bytes to read");
    };
  }

  /**
   * The document an external {@code $ref} location names, relative to the document {@code from}.
   *
   * @return the document's source and its tree
   */
  public Map.Entry<Source, JsonNode> external(Source from, String location, String ref) {
    Source target = locate(from, location, ref);
    String key = target.kind() + ":" + target.location();
    JsonNode doc = cache.get(key);
    if (doc == null) {
      byte[] bytes =
          target.kind() == Source.Kind.FILE
              ? readFile(target.location())
              : fetch(URI.create(target.location()));
      doc = parse(bytes, target.location());
      cache.put(key, doc);
    }
    return Map.entry(target, doc);
  }

  private Source locate(Source from, String location, String ref) {
    boolean hasScheme = location.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*");
    if (hasScheme || from.kind() == Source.Kind.URL) {
      URI uri;
      try {
        uri = hasScheme ? new URI(location) : new URI(from.location()).resolve(new URI(location));
      } catch (java.net.URISyntaxException e) {
        throw refused(ref, "it is not a valid URI");
      }
      String scheme =
          uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw refused(ref, "only http(s) URLs on the allow-list are fetched");
      }
      String text = uri.normalize().toString();
      if (uri.getRawPath() != null && uri.getRawPath().contains("..")) {
        throw refused(ref, "the URL contains '..'");
      }
      boolean allowed = options.allowedRefUrls().stream().anyMatch(text::startsWith);
      if (!allowed) {
        throw refused(
            ref, "its URL " + text + " is not on the allow-list (OpenApiOptions.allowedRefUrls)");
      }
      return new Source(Source.Kind.URL, text);
    }
    if (from.kind() != Source.Kind.FILE || rootDir == null) {
      throw refused(ref, "a document read from a string has no folder to resolve files from");
    }
    if (location.startsWith("/") || location.contains("\\") || location.indexOf(0) >= 0) {
      throw refused(ref, "only relative paths beside the document are read");
    }
    Path current = parentOf(Path.of(from.location()).normalize());
    Path resolved = current.resolve(location).normalize();
    boolean inside =
        rootDir.toString().isEmpty()
            ? !resolved.isAbsolute() && !resolved.startsWith("..")
            : resolved.startsWith(rootDir);
    if (!inside) {
      throw refused(ref, "it leaves the document's folder");
    }
    return new Source(Source.Kind.FILE, resolved.toString());
  }

  private static CallError refused(String ref, String why) {
    return CallError.of(ErrorCode.INVALID_INPUT, "External $ref '" + ref + "' refused: " + why);
  }

  private byte[] readFile(String path) {
    try {
      var size = options.fs().size(path);
      if (size.isPresent() && size.getAsLong() > options.maxDocumentBytes()) {
        throw CallError.of(
            ErrorCode.RESOURCE_EXHAUSTED,
            "OpenAPI document "
                + path
                + " is "
                + size.getAsLong()
                + " bytes, over the cap of "
                + options.maxDocumentBytes()
                + CAP_HINT);
      }
      return options.fs().readFile(path);
    } catch (IOException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE, "Cannot read OpenAPI document " + path + ": " + e, e);
    }
  }

  private byte[] fetch(URI uri) {
    HttpClient client =
        options
            .fetchClient()
            .orElseGet(
                () ->
                    HttpClient.newBuilder()
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .connectTimeout(options.fetchTimeout())
                        .build());
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(options.fetchTimeout())
            .header("Accept", "application/json, application/yaml, */*")
            .GET()
            .build();
    var future = client.sendAsync(request, BoundedBody.handler(options.maxDocumentBytes()));
    try {
      HttpResponse<byte[]> response =
          future.get(options.fetchTimeout().toMillis(), TimeUnit.MILLISECONDS);
      if (response.statusCode() / 100 != 2) {
        throw CallError.of(
            ErrorCode.UNAVAILABLE,
            "Fetching OpenAPI document " + uri + " answered HTTP " + response.statusCode());
      }
      return response.body();
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.CANCELLED, "Interrupted fetching " + uri, e);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw CallError.of(ErrorCode.DEADLINE_EXCEEDED, "Fetching " + uri + " timed out", e);
    } catch (ExecutionException e) {
      throw CallError.from(
          e,
          cause ->
              CallError.of(
                  ErrorCode.UNAVAILABLE,
                  "Cannot fetch OpenAPI document " + uri + ": " + cause,
                  cause));
    }
  }

  /** The pointer part of a {@code $ref} fragment, percent-decoded. */
  static String decodeFragment(String fragment) {
    return java.net.URLDecoder.decode(fragment.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  static final List<String> METHODS =
      List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
}
