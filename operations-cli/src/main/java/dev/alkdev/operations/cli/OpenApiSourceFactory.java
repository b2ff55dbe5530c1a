package dev.alkdev.operations.cli;

import dev.alkdev.operations.cli.config.OpenApiSourceConfig;
import java.util.Map;

/**
 * Turns an OpenAPI entry of the configuration into a source. Found with {@link
 * java.util.ServiceLoader}: the OpenAPI adapter provides one (listed in {@code
 * META-INF/services/dev.alkdev.operations.cli.OpenApiSourceFactory}); without it the command says
 * "OpenAPI support not built in".
 */
public interface OpenApiSourceFactory {

  /**
   * A source for {@code config}, not loaded yet.
   *
   * @param environment where the secrets that the configuration names are read from (see {@link
   *     dev.alkdev.operations.cli.config.AuthConfig#resolve})
   */
  OperationSource create(OpenApiSourceConfig config, Map<String, String> environment);
}
