package dev.alkdev.operations.openapi;

import java.util.Objects;

/**
 * How the handlers authenticate to the service (the seeds' {@code auth} of {@code
 * HTTPServiceConfig}). Values are checked for CR, LF and NUL when the config is built, so a secret
 * cannot smuggle a header.
 */
public sealed interface HttpAuth {

  /** {@code Authorization: Bearer <token>}. */
  static HttpAuth bearer(String token) {
    return new Bearer(token);
  }

  /** An API key sent in a header or a query parameter. */
  static HttpAuth apiKey(String name, ApiKeyIn in, String value) {
    return new ApiKey(name, in, value);
  }

  /** {@code Authorization: Basic base64(user:password)}. */
  static HttpAuth basic(String user, String password) {
    return new Basic(user, password);
  }

  /** Where an API key goes. */
  enum ApiKeyIn {
    HEADER,
    QUERY
  }

  /** Bearer token auth. */
  record Bearer(String token) implements HttpAuth {
    public Bearer {
      Objects.requireNonNull(token, "token");
    }

    @Override
    public String toString() {
      return "Bearer[***]";
    }
  }

  /** API key auth. */
  record ApiKey(String name, ApiKeyIn in, String value) implements HttpAuth {
    public ApiKey {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(in, "in");
      Objects.requireNonNull(value, "value");
      if (name.isEmpty()) {
        throw new IllegalArgumentException("API key name is empty");
      }
    }

    @Override
    public String toString() {
      return "ApiKey[" + name + " in " + in + ", ***]";
    }
  }

  /** HTTP basic auth. */
  record Basic(String user, String password) implements HttpAuth {
    public Basic {
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(password, "password");
      if (user.indexOf(':') >= 0) {
        throw new IllegalArgumentException("basic auth user must not contain ':'");
      }
    }

    @Override
    public String toString() {
      return "Basic[" + user + ", ***]";
    }
  }
}
