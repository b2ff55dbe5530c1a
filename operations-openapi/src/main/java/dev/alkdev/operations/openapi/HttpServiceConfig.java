package dev.alkdev.operations.openapi;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How imported operations call the service: the seeds' {@code HTTPServiceConfig}. Build it with
 * {@link #builder(String)}.
 *
 * @param namespace the namespace of every imported operation
 * @param baseUrl the service's base URL; empty to use the document's first {@code servers} entry
 * @param headers headers sent with every request
 * @param auth how to authenticate, if at all
 * @param timeout the longest a request may take (the call's deadline may shorten it)
 * @param maxResponseBytes the largest response body accepted; a larger one fails the call
 * @param httpClient the client to send with; empty for one built per import (redirects never
 *     followed by the client: the handler follows same-origin redirects itself)
 * @param serverVariables values of the {@code servers[0].variables}, else their defaults
 * @param maxRedirects how many same-origin redirects a call follows
 * @param sseReconnectOnClose whether a SUBSCRIPTION's event stream whose server ends the response
 *     is connected to again with {@code Last-Event-ID} (an endless feed the server closes now and
 *     then), instead of ending (a finite stream, which a server would start again from the
 *     beginning); an operation's {@code x-ops-sse-reconnect: true|false} decides for itself. A
 *     connection that drops is connected to again either way.
 */
public record HttpServiceConfig(
    String namespace,
    Optional<URI> baseUrl,
    Map<String, String> headers,
    Optional<HttpAuth> auth,
    Duration timeout,
    long maxResponseBytes,
    Optional<HttpClient> httpClient,
    Map<String, String> serverVariables,
    int maxRedirects,
    boolean sseReconnectOnClose) {

  /** Default {@link #timeout()}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link #maxResponseBytes()}: 16 MiB. */
  public static final long DEFAULT_MAX_RESPONSE_BYTES = 16L * 1024 * 1024;

  public HttpServiceConfig {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(baseUrl, "baseUrl");
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
    Objects.requireNonNull(auth, "auth");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(httpClient, "httpClient");
    serverVariables = Map.copyOf(Objects.requireNonNull(serverVariables, "serverVariables"));
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive");
    }
    if (maxResponseBytes <= 0) {
      throw new IllegalArgumentException("maxResponseBytes must be positive");
    }
    if (maxRedirects < 0) {
      throw new IllegalArgumentException("maxRedirects must not be negative");
    }
    // A header value with CR, LF or NUL could split the request: refused here, before any send.
    headers.forEach(
        (name, value) -> {
          checkHeaderText("header name", name);
          checkHeaderText("value of header " + name, value);
        });
    auth.ifPresent(HttpServiceConfig::checkAuth);
    baseUrl.ifPresent(
        url -> {
          if (!url.isAbsolute()
              || !("http".equalsIgnoreCase(url.getScheme())
                  || "https".equalsIgnoreCase(url.getScheme()))) {
            throw new IllegalArgumentException("baseUrl must be an absolute http(s) URL: " + url);
          }
        });
  }

  /**
   * A builder with the defaults: no base URL, no headers, no auth, 30 s, 16 MiB, 5 redirects, event
   * streams that end when their server ends them.
   */
  public static Builder builder(String namespace) {
    return new Builder(namespace);
  }

  private static void checkAuth(HttpAuth auth) {
    if (auth instanceof HttpAuth.Bearer b) {
      checkHeaderText("bearer token", b.token());
    } else if (auth instanceof HttpAuth.ApiKey k) {
      checkHeaderText("API key name", k.name());
      checkHeaderText("API key value", k.value());
    } else if (auth instanceof HttpAuth.Basic b) {
      checkHeaderText("basic auth user", b.user());
      checkHeaderText("basic auth password", b.password());
    }
  }

  static void checkHeaderText(String what, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        throw new IllegalArgumentException(what + " contains CR, LF or NUL");
      }
    }
  }

  /** Builds an {@link HttpServiceConfig}. */
  public static final class Builder {
    private final String namespace;
    private URI baseUrl;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private HttpAuth auth;
    private Duration timeout = DEFAULT_TIMEOUT;
    private long maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
    private HttpClient httpClient;
    private final Map<String, String> serverVariables = new LinkedHashMap<>();
    private int maxRedirects = 5;
    private boolean sseReconnectOnClose;

    private Builder(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace");
    }

    public Builder baseUrl(String baseUrl) {
      return baseUrl(URI.create(baseUrl));
    }

    public Builder baseUrl(URI baseUrl) {
      this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
      return this;
    }

    public Builder header(String name, String value) {
      headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public Builder auth(HttpAuth auth) {
      this.auth = Objects.requireNonNull(auth, "auth");
      return this;
    }

    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    public Builder maxResponseBytes(long maxResponseBytes) {
      this.maxResponseBytes = maxResponseBytes;
      return this;
    }

    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
      return this;
    }

    public Builder serverVariable(String name, String value) {
      serverVariables.put(
          Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public Builder maxRedirects(int maxRedirects) {
      this.maxRedirects = maxRedirects;
      return this;
    }

    /**
     * Whether an event stream whose server ends the response is connected to again (false by
     * default: the stream ends); see {@link HttpServiceConfig#sseReconnectOnClose()}.
     */
    public Builder sseReconnectOnClose(boolean reconnect) {
      this.sseReconnectOnClose = reconnect;
      return this;
    }

    public HttpServiceConfig build() {
      return new HttpServiceConfig(
          namespace,
          Optional.ofNullable(baseUrl),
          headers,
          Optional.ofNullable(auth),
          timeout,
          maxResponseBytes,
          Optional.ofNullable(httpClient),
          serverVariables,
          maxRedirects,
          sseReconnectOnClose);
    }
  }
}
