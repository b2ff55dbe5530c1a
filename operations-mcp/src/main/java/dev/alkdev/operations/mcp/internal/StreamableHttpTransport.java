package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.mcp.McpClientConfig;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * MCP streamable HTTP on the JDK {@link HttpClient}, lean: one POST per message, the answer read as
 * JSON or as an SSE stream without extra hops, plus the GET stream for server-initiated messages
 * (such as {@code notifications/tools/list_changed}). Used instead of the SDK's transport because
 * that one roughly doubled the cost of a call over a raw POST (docs/benchmarks.md).
 */
public final class StreamableHttpTransport implements McpClientTransport {
  private static final Logger LOG = LoggerFactory.getLogger(StreamableHttpTransport.class);
  private static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final String VERSION_HEADER = "MCP-Protocol-Version";
  private static final Duration RECONNECT_DELAY = Duration.ofSeconds(1);
  private static final int MAX_EVENT_CHARS = 16 * 1024 * 1024;

  private final String serverName;
  private final URI endpoint;
  private final Map<String, String> headers;
  private final McpJsonMapper mapper;
  private final HttpClient http;
  private volatile Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler;
  private volatile String sessionId;
  private volatile String protocolVersion;
  private volatile Object initializeId;
  private volatile boolean closed;
  private volatile boolean listening;
  private volatile Flow.Subscription listenStream;

  public StreamableHttpTransport(
      String serverName, McpClientConfig.StreamableHttp config, McpJsonMapper mapper) {
    this.serverName = serverName;
    this.endpoint = config.url();
    this.headers = config.headers();
    this.mapper = mapper;
    this.http =
        HttpClient.newBuilder()
            // HTTP/1.1: no h2c upgrade dance on plain http, one connection kept alive per call.
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(config.initializeTimeout())
            .build();
  }

  @Override
  public Mono<Void> connect(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    this.handler = handler;
    return Mono.empty();
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    return Mono.defer(
        () -> {
          if (closed) {
            return Mono.error(new McpTransportException("MCP client " + serverName + " closed"));
          }
          if (message instanceof McpSchema.JSONRPCRequest request
              && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            initializeId = request.id();
          }
          String body;
          try {
            body = mapper.writeValueAsString(message);
          } catch (IOException e) {
            return Mono.error(e);
          }
          HttpRequest post =
              request()
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json, text/event-stream")
                  .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                  .build();
          CompletableFuture<HttpResponse<Void>> sent =
              http.sendAsync(post, info -> bodyFor(info, false));
          return Mono.fromFuture(sent)
              .flatMap(
                  response -> {
                    if (message instanceof McpSchema.JSONRPCNotification n
                        && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(n.method())) {
                      startListening();
                    }
                    return Mono.<Void>empty();
                  });
        });
  }

  private HttpRequest.Builder request() {
    HttpRequest.Builder builder = HttpRequest.newBuilder(endpoint);
    headers.forEach(builder::header);
    String session = sessionId;
    if (session != null) {
      builder.header(SESSION_HEADER, session);
    }
    String version = protocolVersion;
    if (version != null) {
      builder.header(VERSION_HEADER, version);
    }
    return builder;
  }

  /** Chooses how to read a response once its status and headers are known. */
  private HttpResponse.BodySubscriber<Void> bodyFor(HttpResponse.ResponseInfo info, boolean get) {
    info.headers().firstValue(SESSION_HEADER).ifPresent(id -> sessionId = id);
    int status = info.statusCode();
    if (status == 202 || status == 204 || (get && status == 405)) {
      return HttpResponse.BodySubscribers.discarding();
    }
    if (status >= 400) {
      return HttpResponse.BodySubscribers.mapping(
          HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8),
          text -> {
            throw new McpTransportException(
                "MCP server "
                    + serverName
                    + " answered HTTP "
                    + status
                    + (text.isBlank() ? "" : ": " + cut(text)));
          });
    }
    String type = info.headers().firstValue("Content-Type").orElse("");
    if (type.startsWith("text/event-stream")) {
      return HttpResponse.BodySubscribers.fromLineSubscriber(
          new SseLines(get), s -> (Void) null, StandardCharsets.UTF_8, null);
    }
    return HttpResponse.BodySubscribers.mapping(
        HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8),
        text -> {
          if (!text.isBlank()) {
            dispatch(text);
          }
          return null;
        });
  }

  private void dispatch(String json) {
    McpSchema.JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(mapper, json);
    } catch (IOException | RuntimeException e) {
      LOG.warn("MCP server {} sent a message that is not JSON-RPC: {}", serverName, cut(json));
      return;
    }
    if (message instanceof McpSchema.JSONRPCResponse response
        && response.id() != null
        && response.id().equals(initializeId)
        && response.result() instanceof Map<?, ?> result
        && result.get("protocolVersion") instanceof String version) {
      protocolVersion = version;
    }
    Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> h = handler;
    if (h != null) {
      h.apply(Mono.just(message))
          .subscribe(ok -> {}, error -> LOG.debug("Handling a message failed", error));
    }
  }

  /** Opens the GET stream on which the server sends what is not an answer to a POST. */
  private void startListening() {
    if (listening || closed) {
      return;
    }
    listening = true;
    HttpRequest get = request().header("Accept", "text/event-stream").GET().build();
    http.sendAsync(get, info -> bodyFor(info, true))
        .whenComplete(
            (response, error) -> {
              listening = false;
              if (closed) {
                return;
              }
              if (response != null && response.statusCode() == 405) {
                return; // The server offers no GET stream.
              }
              LOG.debug("The GET stream of MCP server {} ended; reopening", serverName, error);
              CompletableFuture.delayedExecutor(
                      RECONNECT_DELAY.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                  .execute(this::startListening);
            });
  }

  /** Parses SSE: {@code data:} lines up to a blank line make one message. */
  private final class SseLines implements Flow.Subscriber<String> {
    private final boolean listen;
    private final StringBuilder data = new StringBuilder();

    SseLines(boolean listen) {
      this.listen = listen;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      if (listen) {
        listenStream = subscription;
      }
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(String raw) {
      String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
      if (line.isEmpty()) {
        if (data.length() > 0) {
          dispatch(data.toString());
          data.setLength(0);
        }
      } else if (line.startsWith("data:")) {
        if (data.length() > 0) {
          data.append('\n');
        }
        String value = line.substring(5);
        data.append(value.startsWith(" ") ? value.substring(1) : value);
        if (data.length() > MAX_EVENT_CHARS) {
          LOG.warn(
              "MCP server {} sent an event over {} characters; dropped",
              serverName,
              MAX_EVENT_CHARS);
          data.setLength(0);
        }
      }
      // event:, id:, retry: and comments carry nothing this client needs.
    }

    @Override
    public void onError(Throwable throwable) {
      data.setLength(0);
    }

    @Override
    public void onComplete() {
      if (data.length() > 0) {
        dispatch(data.toString());
        data.setLength(0);
      }
    }
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.defer(
        () -> {
          if (closed) {
            return Mono.empty();
          }
          closed = true;
          Optional.ofNullable(listenStream).ifPresent(Flow.Subscription::cancel);
          String session = sessionId;
          if (session == null) {
            return Mono.empty();
          }
          HttpRequest delete = request().timeout(Duration.ofSeconds(2)).DELETE().build();
          return Mono.fromFuture(http.sendAsync(delete, HttpResponse.BodyHandlers.discarding()))
              .onErrorResume(e -> Mono.empty())
              .then();
        });
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return mapper.convertValue(data, typeRef);
  }

  private static String cut(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }
}
