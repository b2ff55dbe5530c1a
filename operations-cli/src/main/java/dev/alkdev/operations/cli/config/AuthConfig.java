package dev.alkdev.operations.cli.config;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;

/**
 * How to authenticate to an OpenAPI service (or an MCP server over HTTP). It holds the NAMES of
 * environment variables, never secrets: a configuration file is shared, copied and committed, so a
 * literal token in it is refused when it is read. The secret is read from the environment only when
 * the source is opened, by {@link #resolve}.
 *
 * <pre>{@code
 * auth: {bearer: {tokenEnv: GITHUB_TOKEN}}
 * auth: {apiKey: {name: X-API-Key, in: header, valueEnv: PETSTORE_KEY}}
 * auth: {basic: {usernameEnv: SVC_USER, passwordEnv: SVC_PASSWORD}}
 * }</pre>
 */
public sealed interface AuthConfig {

  /** What to add to each request: headers and query parameters, secrets resolved. */
  record Credentials(Map<String, String> headers, Map<String, String> queryParameters) {
    public Credentials {
      headers = Map.copyOf(headers);
      queryParameters = Map.copyOf(queryParameters);
    }

    /** Keeps secrets out of logs and stack traces. */
    @Override
    public String toString() {
      return "Credentials[headers="
          + headers.keySet()
          + ", query="
          + queryParameters.keySet()
          + "]";
    }
  }

  /**
   * Reads the secrets from {@code environment}.
   *
   * @throws ConfigException naming the variable, if it is unset or empty
   */
  Credentials resolve(Map<String, String> environment);

  /** {@code Authorization: Bearer <token>}, the token from {@code tokenEnv}. */
  record Bearer(String tokenEnv) implements AuthConfig {
    public Bearer {
      Objects.requireNonNull(tokenEnv, "tokenEnv");
    }

    @Override
    public Credentials resolve(Map<String, String> environment) {
      return new Credentials(
          Map.of("Authorization", "Bearer " + read(environment, tokenEnv)), Map.of());
    }
  }

  /** Where an API key goes. */
  enum KeyLocation {
    HEADER,
    QUERY
  }

  /** An API key in a header or query parameter called {@code name}, from {@code valueEnv}. */
  record ApiKey(String name, KeyLocation in, String valueEnv) implements AuthConfig {
    public ApiKey {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(in, "in");
      Objects.requireNonNull(valueEnv, "valueEnv");
    }

    @Override
    public Credentials resolve(Map<String, String> environment) {
      String value = read(environment, valueEnv);
      return in == KeyLocation.HEADER
          ? new Credentials(Map.of(name, value), Map.of())
          : new Credentials(Map.of(), Map.of(name, value));
    }
  }

  /** HTTP basic authentication, user and password from two variables. */
  record Basic(String usernameEnv, String passwordEnv) implements AuthConfig {
    public Basic {
      Objects.requireNonNull(usernameEnv, "usernameEnv");
      Objects.requireNonNull(passwordEnv, "passwordEnv");
    }

    @Override
    public Credentials resolve(Map<String, String> environment) {
      String pair = read(environment, usernameEnv) + ":" + read(environment, passwordEnv);
      String encoded = Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
      return new Credentials(Map.of("Authorization", "Basic " + encoded), Map.of());
    }
  }

  private static String read(Map<String, String> environment, String variable) {
    String value = environment.get(variable);
    if (value == null || value.isEmpty()) {
      throw new ConfigException(
          "environment variable "
              + variable
              + " is not set; the configuration reads a secret from it (export "
              + variable
              + "=...)");
    }
    return value;
  }
}
