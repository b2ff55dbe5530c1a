package dev.alkdev.operations.openapi;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How documents are read.
 *
 * @param maxDocumentBytes the largest document (and external {@code $ref} document) accepted
 * @param fs where files are read from
 * @param allowedRefUrls URL prefixes external {@code $ref}s may be fetched from; empty: none
 * @param fetchClient the client that fetches documents by URL; empty for a default client
 * @param fetchTimeout the longest one document fetch may take
 */
public record OpenApiOptions(
    long maxDocumentBytes,
    OpenApiFs fs,
    List<String> allowedRefUrls,
    Optional<HttpClient> fetchClient,
    Duration fetchTimeout) {

  /**
   * Default {@link #maxDocumentBytes()}: 64 MiB. The largest public descriptions load with room to
   * spare (Microsoft Graph beta is about 47 MB of JSON, Graph v1.0 20 MB, GitHub's 13 MB).
   */
  public static final long DEFAULT_MAX_DOCUMENT_BYTES = 64L * 1024 * 1024;

  public OpenApiOptions {
    if (maxDocumentBytes <= 0) {
      throw new IllegalArgumentException("maxDocumentBytes must be positive");
    }
    Objects.requireNonNull(fs, "fs");
    allowedRefUrls = List.copyOf(allowedRefUrls);
    Objects.requireNonNull(fetchClient, "fetchClient");
    Objects.requireNonNull(fetchTimeout, "fetchTimeout");
  }

  /** 64 MiB, the local file system, no external URLs, 30 s fetch timeout. */
  public static OpenApiOptions defaults() {
    return new OpenApiOptions(
        DEFAULT_MAX_DOCUMENT_BYTES,
        OpenApiFs.local(),
        List.of(),
        Optional.empty(),
        Duration.ofSeconds(30));
  }

  public OpenApiOptions withMaxDocumentBytes(long max) {
    return new OpenApiOptions(max, fs, allowedRefUrls, fetchClient, fetchTimeout);
  }

  public OpenApiOptions withFs(OpenApiFs fs) {
    return new OpenApiOptions(maxDocumentBytes, fs, allowedRefUrls, fetchClient, fetchTimeout);
  }

  public OpenApiOptions withAllowedRefUrls(List<String> prefixes) {
    return new OpenApiOptions(maxDocumentBytes, fs, prefixes, fetchClient, fetchTimeout);
  }

  public OpenApiOptions withFetchClient(HttpClient client) {
    return new OpenApiOptions(
        maxDocumentBytes, fs, allowedRefUrls, Optional.of(client), fetchTimeout);
  }

  public OpenApiOptions withFetchTimeout(Duration timeout) {
    return new OpenApiOptions(maxDocumentBytes, fs, allowedRefUrls, fetchClient, timeout);
  }
}
