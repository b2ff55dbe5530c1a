package dev.alkdev.operations.cli.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One OpenAPI document to load (the seeds' {@code FromOpenAPI} with its {@code HTTPServiceConfig}):
 * its operations go in {@code namespace}, calls go to {@code baseUrl} (by default the document's
 * first server), authenticated with {@code auth}.
 *
 * @param location a file path or an http(s) URL of the document, JSON or YAML
 */
public record OpenApiSourceConfig(
    String namespace, String location, Optional<String> baseUrl, Optional<AuthConfig> auth) {
  public OpenApiSourceConfig {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(auth, "auth");
  }

  /** This entry with another base URL (what {@code --base-url NAME=URL} does). */
  public OpenApiSourceConfig withBaseUrl(String url) {
    return new OpenApiSourceConfig(namespace, location, Optional.of(url), auth);
  }
}
