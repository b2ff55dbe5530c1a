package dev.alkdev.operations.mcp;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach one MCP server (the seeds' {@code MCPClientConfig}): a process spoken to over stdio,
 * or a streamable HTTP endpoint. Both carry the two timeouts every connection needs.
 */
public sealed interface McpClientConfig {

  /** The default bound on connecting and the {@code initialize} handshake. */
  Duration DEFAULT_INITIALIZE_TIMEOUT = Duration.ofSeconds(20);

  /** The default bound on one request when the caller's context has no deadline. */
  Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);

  /** Bounds starting the server (or reaching it) and the {@code initialize} handshake. */
  Duration initializeTimeout();

  /**
   * Bounds a request (tool call, tool listing) whose context has no deadline; a context deadline
   * replaces it for that call.
   */
  Duration requestTimeout();

  /** A server started as a process and spoken to over its stdin/stdout. */
  static Stdio.Builder stdio(String command) {
    return new Stdio.Builder(command);
  }

  /** A server reached over MCP streamable HTTP at {@code url} (the full endpoint, e.g. .../mcp). */
  static StreamableHttp.Builder streamableHttp(String url) {
    return new StreamableHttp.Builder(url);
  }

  /**
   * A stdio server.
   *
   * @param command the program to run
   * @param args its arguments
   * @param env variables added to (or replacing) the inherited environment
   * @param cwd the working directory, the current one when empty
   * @param era which era of MCP to speak: {@link Era#AUTO} (the default) asks the server
   */
  record Stdio(
      String command,
      List<String> args,
      Map<String, String> env,
      Optional<String> cwd,
      Duration initializeTimeout,
      Duration requestTimeout,
      Era era)
      implements McpClientConfig {
    public Stdio {
      Objects.requireNonNull(command, "command");
      if (command.isBlank()) {
        throw new IllegalArgumentException("command is blank");
      }
      args = List.copyOf(args);
      env = Map.copyOf(env);
      Objects.requireNonNull(cwd, "cwd");
      Objects.requireNonNull(era, "era");
      checkPositive(initializeTimeout, "initializeTimeout");
      checkPositive(requestTimeout, "requestTimeout");
    }

    /** Builds a {@link Stdio} config. */
    public static final class Builder {
      private final String command;
      private List<String> args = List.of();
      private final Map<String, String> env = new LinkedHashMap<>();
      private String cwd;
      private Duration initializeTimeout = DEFAULT_INITIALIZE_TIMEOUT;
      private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
      private Era era = Era.AUTO;

      private Builder(String command) {
        this.command = Objects.requireNonNull(command, "command");
      }

      public Builder args(String... args) {
        return args(List.of(args));
      }

      public Builder args(List<String> args) {
        this.args = List.copyOf(args);
        return this;
      }

      public Builder env(String name, String value) {
        env.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return this;
      }

      public Builder env(Map<String, String> env) {
        env.forEach(this::env);
        return this;
      }

      public Builder cwd(String cwd) {
        this.cwd = Objects.requireNonNull(cwd, "cwd");
        return this;
      }

      public Builder initializeTimeout(Duration timeout) {
        this.initializeTimeout = Objects.requireNonNull(timeout, "timeout");
        return this;
      }

      public Builder requestTimeout(Duration timeout) {
        this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
        return this;
      }

      /** Which era of MCP to speak; {@link Era#AUTO} by default. */
      public Builder era(Era era) {
        this.era = Objects.requireNonNull(era, "era");
        return this;
      }

      public Stdio build() {
        return new Stdio(
            command, args, env, Optional.ofNullable(cwd), initializeTimeout, requestTimeout, era);
      }
    }
  }

  /**
   * A streamable HTTP server.
   *
   * @param url the MCP endpoint, e.g. {@code http://127.0.0.1:3001/mcp}
   * @param headers sent with every request (an {@code Authorization} header, say)
   * @param era which era of MCP to speak: {@link Era#AUTO} (the default) asks the server
   * @param oauth how to get tokens when the server asks for authorization; without it, a server
   *     that answers 401 fails the connection (UNAUTHENTICATED)
   */
  record StreamableHttp(
      URI url,
      Map<String, String> headers,
      Duration initializeTimeout,
      Duration requestTimeout,
      Era era,
      Optional<McpOAuth> oauth)
      implements McpClientConfig {
    public StreamableHttp {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(era, "era");
      Objects.requireNonNull(oauth, "oauth");
      if (!"http".equalsIgnoreCase(url.getScheme()) && !"https".equalsIgnoreCase(url.getScheme())) {
        throw new IllegalArgumentException("url must be http or https, was " + url);
      }
      headers = Map.copyOf(headers);
      checkPositive(initializeTimeout, "initializeTimeout");
      checkPositive(requestTimeout, "requestTimeout");
    }

    /** Builds a {@link StreamableHttp} config. */
    public static final class Builder {
      private final URI url;
      private final Map<String, String> headers = new LinkedHashMap<>();
      private Duration initializeTimeout = DEFAULT_INITIALIZE_TIMEOUT;
      private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
      private Era era = Era.AUTO;
      private McpOAuth oauth;

      private Builder(String url) {
        this.url = URI.create(Objects.requireNonNull(url, "url"));
      }

      /** OAuth 2.1 as MCP's authorization specification has it ({@link McpOAuth}). */
      public Builder oauth(McpOAuth oauth) {
        this.oauth = Objects.requireNonNull(oauth, "oauth");
        return this;
      }

      public Builder header(String name, String value) {
        headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return this;
      }

      public Builder headers(Map<String, String> headers) {
        headers.forEach(this::header);
        return this;
      }

      public Builder initializeTimeout(Duration timeout) {
        this.initializeTimeout = Objects.requireNonNull(timeout, "timeout");
        return this;
      }

      public Builder requestTimeout(Duration timeout) {
        this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
        return this;
      }

      /** Which era of MCP to speak; {@link Era#AUTO} by default. */
      public Builder era(Era era) {
        this.era = Objects.requireNonNull(era, "era");
        return this;
      }

      public StreamableHttp build() {
        return new StreamableHttp(
            url, headers, initializeTimeout, requestTimeout, era, Optional.ofNullable(oauth));
      }
    }
  }

  /**
   * The two eras of MCP: 2025 (revisions up to 2025-11-25: an {@code initialize} handshake and a
   * session, or the process over stdio) and modern (2026-07-28: no handshake, every request carries
   * its revision and the client's capabilities).
   */
  enum Era {
    /**
     * Ask the server: a modern {@code server/discover} first, falling back to {@code initialize}
     * when the answer is not a modern one (over stdio also when none comes within a few seconds),
     * as the revision says. An HTTP server found to speak only 2025 is remembered for this process,
     * so later connections skip the probe.
     */
    AUTO,
    /** Only 2025: {@code initialize}, then a session. */
    LEGACY,
    /** Only 2026-07-28; a server that does not speak it fails to connect. */
    MODERN
  }

  private static void checkPositive(Duration duration, String what) {
    Objects.requireNonNull(duration, what);
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + duration);
    }
  }
}
