package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpInputHandler;
import dev.alkdev.operations.sse.SseLimits;
import dev.alkdev.operations.sse.SseParser;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * MCP streamable HTTP on Jetty's HTTP client: one POST per message, the answer read as JSON or as
 * an SSE stream (our {@link SseParser}) and handed on as soon as its event ends, plus the GET
 * stream for server-initiated messages (such as {@code notifications/tools/list_changed}).
 *
 * <p>Why Jetty and not the JDK {@code HttpClient} (decision D17 in docs/decisions/): the JDK
 * client's {@code sendAsync} completes every exchange through {@code CompletableFuture}'s default
 * async pool, which on a machine with two CPUs or fewer is a new thread per task, and its blocking
 * {@code send} ties up a thread per call. A call through this transport measured below a raw JDK
 * POST (docs/benchmarks.md, McpCallBenchmark).
 *
 * <p>Response listeners run on this transport's own daemon threads, and so do the continuations of
 * a call's future: callers should not block in them.
 */
public final class StreamableHttpTransport implements McpClientTransport {
  private static final Logger LOG = LoggerFactory.getLogger(StreamableHttpTransport.class);
  private static final RateLimitedLog WARNINGS = RateLimitedLog.of(LOG);
  private static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final String VERSION_HEADER = "MCP-Protocol-Version";
  private static final String JSON = "application/json";
  private static final String EVENT_STREAM = "text/event-stream";
  private static final Duration RECONNECT_DELAY = Duration.ofSeconds(1);
  private static final Duration DELETE_TIMEOUT = Duration.ofSeconds(2);

  /** The largest JSON answer or SSE event taken from a server. */
  static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  private static final SseLimits SSE_LIMITS =
      SseLimits.defaults().withMaxLineBytes(MAX_MESSAGE_BYTES).withMaxEventBytes(MAX_MESSAGE_BYTES);
  private static final int MAX_ERROR_TEXT_BYTES = 4096;

  private final String serverName;
  private final McpClientConfig.StreamableHttp config;
  private final McpJsonMapper mapper;
  private final HttpClient http;

  /** Bounds a POST of the SDK's: the longer of the two configured timeouts, plus a margin. */
  private final long sdkIdleTimeoutMillis;

  /** POSTs still open, by the JSON-RPC id of the request they carry, so a cancel can end them. */
  private final Map<Object, Request> openPosts = new ConcurrentHashMap<>();

  private volatile Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler;
  private volatile String sessionId;
  private volatile String protocolVersion;
  private volatile Object initializeId;
  private volatile boolean closed;
  private volatile boolean listening;
  private volatile Request listenStream;

  /**
   * The servers (by endpoint URL) found to speak only 2025, so a later connection to one skips the
   * modern probe; forgotten when such a server's initialize fails.
   */
  private static final Set<String> KNOWN_LEGACY = ConcurrentHashMap.newKeySet();

  /** The era this connection speaks; decided at initialize under {@code Era.AUTO}. */
  private volatile McpClientConfig.Era era;

  /** What the modern era keeps: metadata, mirrored parameters, calls in input rounds. */
  private final ModernSession modern;

  /** OAuth for this server, when configured; null otherwise. */
  private final OAuthClient oauth;

  /**
   * The most authorizations one request waits for: a 401 (no or an expired token), then a 403
   * asking for more scope. A third refusal is the answer.
   */
  private static final int MAX_AUTH_ROUNDS = 2;

  public StreamableHttpTransport(
      String serverName,
      McpClientConfig.StreamableHttp config,
      McpJsonMapper mapper,
      Optional<McpInputHandler> inputHandler) {
    this.serverName = serverName;
    this.modern = new ModernSession(serverName, inputHandler, this::dispatch, this::sendRetry);
    this.config = config;
    this.mapper = mapper;
    this.oauth = config.oauth().map(o -> new OAuthClient(serverName, config.url(), o)).orElse(null);
    Duration longer =
        config.requestTimeout().compareTo(config.initializeTimeout()) >= 0
            ? config.requestTimeout()
            : config.initializeTimeout();
    this.sdkIdleTimeoutMillis = longer.plusSeconds(5).toMillis();
    this.era =
        config.era() == McpClientConfig.Era.AUTO && KNOWN_LEGACY.contains(config.url().toString())
            ? McpClientConfig.Era.LEGACY
            : config.era();
    String threadName = "ops-mcp-http-" + serverName;
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName(threadName);
    threads.setDaemon(true);
    this.http = new HttpClient();
    http.setExecutor(threads);
    http.setScheduler(new ScheduledExecutorScheduler(threadName + "-scheduler", true));
    http.setConnectTimeout(config.initializeTimeout().toMillis());
    // Like the JDK client: a redirect is an answer, not something to follow with the session id.
    http.setFollowRedirects(false);
    http.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "operations-java"));
  }

  @Override
  public Mono<Void> connect(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    return Mono.defer(
        () -> {
          this.handler = handler;
          try {
            http.start();
            return Mono.<Void>empty();
          } catch (Exception e) {
            return Mono.error(
                new McpTransportException(
                    "Could not start the HTTP client for MCP server " + serverName, e));
          }
        });
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    return Mono.create(
        sink -> {
          if (closed) {
            sink.error(new McpTransportException("MCP client " + serverName + " closed"));
            return;
          }
          if (message instanceof McpSchema.JSONRPCRequest request
              && McpSchema.METHOD_INITIALIZE.equals(request.method())
              && era != McpClientConfig.Era.LEGACY) {
            open(request, sink);
            return;
          }
          if (era == McpClientConfig.Era.MODERN) {
            sendModern(message, sink);
            return;
          }
          sendLegacy(message, sink);
        });
  }

  /**
   * The SDK's initialize, under AUTO or MODERN: a modern {@code server/discover} first. A modern
   * answer makes the connection modern and the SDK gets an initialize result made from it; an
   * answer that is not modern (a 2025 server: 400, 404, 405, or an error only 2025 knows) sends the
   * initialize itself, unless the config asks for the modern era only.
   */
  private void open(
      McpSchema.JSONRPCRequest initialize, reactor.core.publisher.MonoSink<Void> sink) {
    initializeId = initialize.id();
    modern.initializing(tree(initialize.params()));
    probe(initialize, sink, true, 0);
  }

  /**
   * Sends the modern probe. A -32022 that lists 2026-07-28 (a server that wants the request again,
   * as the revision's negotiation does) is answered by one more probe.
   */
  private void probe(
      McpSchema.JSONRPCRequest initialize,
      reactor.core.publisher.MonoSink<Void> sink,
      boolean mayRetry,
      int authRounds) {
    ObjectNode discover =
        modern.ownRequest(
            CallTrackingTransport.OWN_ID_PREFIX + "discover",
            "server/discover",
            ToolMapper.JSON.createObjectNode());
    Request post = modernPost(discover).idleTimeout(sdkIdleTimeoutMillis, TimeUnit.MILLISECONDS);
    new org.eclipse.jetty.client.CompletableResponseListener(post, MAX_MESSAGE_BYTES)
        .send()
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                sink.error(transportFailure(failure));
                return;
              }
              int refused = response.getStatus();
              if (oauth != null
                  && (refused == 401 || refused == 403)
                  && authRounds < MAX_AUTH_ROUNDS) {
                oauth
                    .challenge(
                        refused,
                        response.getHeaders().get(HttpHeader.WWW_AUTHENTICATE),
                        post.getHeaders().get(HttpHeader.AUTHORIZATION))
                    .whenComplete(
                        (ok, error) -> {
                          if (error != null) {
                            sink.error(transportFailure(error));
                          } else {
                            probe(initialize, sink, mayRetry, authRounds + 1);
                          }
                        });
                return;
              }
              JsonNode answer = JsonRpcAnswers.in(response, SSE_LIMITS);
              JsonNode result = answer == null ? null : answer.get("result");
              if (result != null
                  && result.path("supportedVersions").toString().contains(ModernWire.VERSION)) {
                era = McpClientConfig.Era.MODERN;
                dispatch(
                    ModernSession.initializeResult(
                        initialize.id(), tree(initialize.params()), result, serverName));
                sink.success();
                if (result.at("/capabilities/tools/listChanged").asBoolean(false)) {
                  startListening();
                }
                return;
              }
              if (config.era() == McpClientConfig.Era.MODERN) {
                sink.error(
                    new McpTransportException(
                        "MCP server "
                            + serverName
                            + " does not speak MCP "
                            + ModernWire.VERSION
                            + " (server/discover answered HTTP "
                            + response.getStatus()
                            + (answer == null ? "" : ": " + Texts.oneLine(answer.toString()))
                            + ")"));
                return;
              }
              if (answer != null && ModernWire.isModernError(answer)) {
                String supported = answer.at("/error/data/supported").toString();
                if (mayRetry && supported.contains(ModernWire.VERSION)) {
                  probe(initialize, sink, false, authRounds);
                  return;
                }
                // A modern server that does not speak our modern revision: 2025, if it does.
                if (ModernWire.LEGACY_VERSIONS.stream().noneMatch(supported::contains)) {
                  sink.error(
                      new McpTransportException(
                          "MCP server "
                              + serverName
                              + " speaks none of this client's revisions: "
                              + Texts.oneLine(answer.toString())));
                  return;
                }
              }
              era = McpClientConfig.Era.LEGACY;
              int status = response.getStatus();
              // Remembered only when the server itself answered as a 2025 server: not for a
              // refusal that says nothing of its era (401, 403, 5xx).
              if (status == 400
                  || status == 404
                  || status == 405
                  || (status >= 200 && status < 300 && answer != null)) {
                KNOWN_LEGACY.add(config.url().toString());
              }
              sendLegacy(initialize, sink);
            });
  }

  /**
   * A message in the modern era: a request goes out with its metadata and mirrored headers and no
   * session; the SDK's notifications have no modern counterpart over HTTP (closing the request's
   * stream is its cancellation), and ping is answered here (the revision removed it).
   */
  private void sendModern(
      McpSchema.JSONRPCMessage message, reactor.core.publisher.MonoSink<Void> sink) {
    if (message instanceof McpSchema.JSONRPCNotification n) {
      if (CallTrackingTransport.METHOD_NOTIFICATION_CANCELLED.equals(n.method())
          && n.params() instanceof Map<?, ?> params) {
        modern.forget(params.get("requestId"));
        endOpenPost(params.get("requestId"));
      }
      sink.success();
      return;
    }
    if (!(message instanceof McpSchema.JSONRPCRequest request)) {
      sink.success(); // an answer to a server request: the modern revision sends none over HTTP
      return;
    }
    if (McpSchema.METHOD_PING.equals(request.method())) {
      ObjectNode pong = ToolMapper.JSON.createObjectNode();
      pong.put("jsonrpc", "2.0");
      pong.set("id", ToolMapper.JSON.valueToTree(request.id()));
      pong.putObject("result");
      dispatch(pong.toString());
      sink.success();
      return;
    }
    ObjectNode body = modern.outgoing((ObjectNode) tree(request));
    Object requestId = request.id();
    boolean ours = requestId instanceof String s && CallTrackingTransport.isOwnId(s);
    Supplier<Request> build =
        () -> modernPost(body).idleTimeout(ours ? 0 : sdkIdleTimeoutMillis, TimeUnit.MILLISECONDS);
    Request post = build.get();
    openPosts.put(requestId, post);
    new Exchange(
            false,
            requestId,
            (status, failure) -> {
              openPosts.remove(requestId, post);
              if (failure != null) {
                modern.forget(requestId);
                sink.error(failure);
              } else {
                sink.success();
              }
            })
        .authorizable(build, requestId)
        .sendOn(post);
  }

  /** An SDK object as our JSON tree, through the SDK's own mapping. */
  private JsonNode tree(Object sdkObject) {
    try {
      return ToolMapper.JSON.readTree(mapper.writeValueAsString(sdkObject));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Whether this connection speaks 2026-07-28. */
  boolean isModern() {
    return era == McpClientConfig.Era.MODERN;
  }

  /** A modern POST: the body, the revision's headers, the config's headers, no session. */
  private Request modernPost(ObjectNode body) {
    Map<String, String> mirrored = modern.headers(body);
    return http.newRequest(config.url())
        .method(HttpMethod.POST)
        .headers(
            h -> {
              config.headers().forEach(h::put);
              bearer(h);
              mirrored.forEach(h::put);
              h.put(HttpHeader.ACCEPT, JSON + ", " + EVENT_STREAM);
            })
        .body(new StringRequestContent(JSON, body.toString(), StandardCharsets.UTF_8));
  }

  /** A message in the 2025 era, on the session. */
  private void sendLegacy(
      McpSchema.JSONRPCMessage message, reactor.core.publisher.MonoSink<Void> sink) {
    if (message instanceof McpSchema.JSONRPCNotification n
        && CallTrackingTransport.METHOD_NOTIFICATION_CANCELLED.equals(n.method())
        && n.params() instanceof Map<?, ?> params) {
      endOpenPost(params.get("requestId"));
    }
    Object requestId = null;
    if (message instanceof McpSchema.JSONRPCRequest request) {
      requestId = request.id();
      if (McpSchema.METHOD_INITIALIZE.equals(request.method())) {
        initializeId = requestId;
      }
    }
    String body;
    try {
      body = mapper.writeValueAsString(message);
    } catch (IOException e) {
      sink.error(e);
      return;
    }
    boolean ours = requestId instanceof String s && CallTrackingTransport.isOwnId(s);
    Supplier<Request> build =
        () ->
            request(HttpMethod.POST)
                .headers(h -> h.put(HttpHeader.ACCEPT, JSON + ", " + EVENT_STREAM))
                .body(new StringRequestContent(JSON, body, StandardCharsets.UTF_8))
                // Our tool calls are bounded by the caller's deadline and ended by a cancel; the
                // SDK's requests and notifications by the configured timeouts.
                .idleTimeout(ours ? 0 : sdkIdleTimeoutMillis, TimeUnit.MILLISECONDS);
    Request post = build.get();
    Object key = requestId;
    if (key != null) {
      openPosts.put(key, post);
    }
    new Exchange(
            false,
            key,
            (status, failure) -> {
              if (key != null) {
                openPosts.remove(key); // the POST, or the GET that resumed its answer
              }
              if (failure != null) {
                if (key != null && key.equals(initializeId)) {
                  // Perhaps no longer a 2025 server: the next connection asks again.
                  KNOWN_LEGACY.remove(config.url().toString());
                }
                sink.error(failure);
                return;
              }
              if (message instanceof McpSchema.JSONRPCNotification n
                  && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(n.method())) {
                startListening();
              }
              sink.success();
            })
        .authorizable(build, key)
        .sendOn(post);
  }

  /**
   * Ends the POST that carries a cancelled request, if it is still open: nothing on it is wanted
   * any more. It ends as the cancel goes out, not after, so a server that does not answer the
   * notification cannot keep it open. The disconnect alone would not cancel (streamable HTTP says a
   * disconnect is not a cancel); the notification does.
   */
  private void endOpenPost(Object requestId) {
    Request post = requestId == null ? null : openPosts.remove(requestId);
    if (post != null) {
      post.abort(new McpTransportException("Request " + requestId + " was cancelled"));
    }
  }

  private Request request(HttpMethod method) {
    Request request = http.newRequest(config.url()).method(method);
    String session = sessionId;
    String version = protocolVersion;
    return request.headers(
        h -> {
          config.headers().forEach(h::put);
          bearer(h);
          if (session != null) {
            h.put(SESSION_HEADER, session);
          }
          if (version != null) {
            h.put(VERSION_HEADER, version);
          }
        });
  }

  /** The OAuth token, when there is one: it replaces an Authorization header of the config. */
  private void bearer(org.eclipse.jetty.http.HttpFields.Mutable headers) {
    if (oauth != null) {
      oauth.authorization().ifPresent(token -> headers.put(HttpHeader.AUTHORIZATION, token));
    }
  }

  /** Hands a message to the client; returns it, or null when it is not JSON-RPC. */
  private McpSchema.JSONRPCMessage dispatch(String json) {
    McpSchema.JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(mapper, json);
    } catch (IOException | RuntimeException e) {
      WARNINGS.warn(
          "MCP server {} sent a message that is not JSON-RPC: {}", serverName, Texts.oneLine(json));
      return null;
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
    return message;
  }

  /** A call's next round, on its own POST; a cancel of the call ends it. */
  private void sendRetry(Object original, ObjectNode body) {
    String retryId = body.path("id").asString();
    if (closed || !modern.isAwaiting(original)) {
      modern.roundFailed(original, retryId, "the client closed");
      return;
    }
    Supplier<Request> build = () -> modernPost(body).idleTimeout(0, TimeUnit.MILLISECONDS);
    Request post = build.get();
    openPosts.put(original, post);
    new Exchange(
            false,
            retryId,
            (status, failure) -> {
              openPosts.remove(original, post);
              if (failure != null) {
                modern.roundFailed(original, retryId, failure.getMessage());
              }
            })
        .authorizable(build, original)
        .sendOn(post);
  }

  /**
   * Opens the stream on which the server sends what is not an answer to a request: the session's
   * GET stream (2025), or a {@code subscriptions/listen} POST asking for tool-list changes
   * (2026-07-28).
   */
  private void startListening() {
    if (listening || closed) {
      return;
    }
    listening = true;
    Request get;
    if (era == McpClientConfig.Era.MODERN) {
      ObjectNode params = ToolMapper.JSON.createObjectNode();
      params.putObject("notifications").put("toolsListChanged", true);
      ObjectNode listen =
          modern.ownRequest(
              CallTrackingTransport.OWN_ID_PREFIX + "listen", "subscriptions/listen", params);
      get = modernPost(listen).idleTimeout(0, TimeUnit.MILLISECONDS);
    } else {
      get =
          request(HttpMethod.GET)
              .headers(h -> h.put(HttpHeader.ACCEPT, EVENT_STREAM))
              // The stream is quiet until the server has something to say.
              .idleTimeout(0, TimeUnit.MILLISECONDS);
    }
    listenStream = get;
    get.send(
        new Exchange(
            true,
            null,
            (status, failure) -> {
              listening = false;
              if (closed) {
                return;
              }
              if (status == 405 || status == 404) {
                return; // The server offers no such stream.
              }
              LOG.debug(
                  "The GET stream of MCP server {} ended (status {}); reopening",
                  serverName,
                  status,
                  failure);
              http.getScheduler()
                  .schedule(
                      this::startListening, RECONNECT_DELAY.toMillis(), TimeUnit.MILLISECONDS);
            }));
  }

  /** What a response's body is read as, once its status and headers are known. */
  private enum BodyKind {
    DISCARD,
    ERROR_TEXT,
    JSON,
    EVENTS
  }

  /**
   * Reads one response. Jetty calls a response's listener methods one at a time, so the state needs
   * no locking. {@code done} gets the status and the failure (null when the exchange worked).
   */
  private final class Exchange implements Response.Listener {
    /** The id of the request the POST carries; null for the GET stream and for notifications. */
    private final Object requestId;

    /** How many times this request's answer has been resumed on a GET (2025 streams). */
    private final int resumes;

    /** The resuming GET, ended once it has given the answer (the server may keep it open). */
    private volatile Request resumeRequest;

    private volatile boolean endedAfterAnswer;

    private final boolean get;
    private final BiConsumer<Integer, Throwable> done;

    /** Makes the request again after an authorization; null when it is not sent again. */
    private Supplier<Request> rebuild;

    /** The key of {@link #openPosts} the request is kept under; null when it is not kept. */
    private Object trackKey;

    private int authRounds;
    private Request sent;
    private String wwwAuthenticate;
    private boolean answered;
    private BodyKind kind = BodyKind.DISCARD;
    private int status;
    private byte[] body = new byte[0];
    private int bodyLength;
    private SseParser events;

    Exchange(boolean get, Object requestId, BiConsumer<Integer, Throwable> done) {
      this(get, requestId, done, 0);
    }

    Exchange(boolean get, Object requestId, BiConsumer<Integer, Throwable> done, int resumes) {
      this.requestId = requestId;
      this.get = get;
      this.done = done;
      this.resumes = resumes;
    }

    /** Lets a 401 or 403 be answered by an authorization and the request sent again. */
    Exchange authorizable(Supplier<Request> rebuild, Object trackKey) {
      this.rebuild = rebuild;
      this.trackKey = trackKey;
      return this;
    }

    void sendOn(Request request) {
      this.sent = request;
      request.send(this);
    }

    /**
     * After an authorization, the same request with the new token, unless it was cancelled or the
     * client closed meanwhile.
     */
    private void sendAgain() {
      Request again = rebuild.get();
      if (closed || (trackKey != null && !openPosts.replace(trackKey, sent, again))) {
        done.accept(
            status,
            new McpTransportException(
                "MCP server " + serverName + ": the request ended while authorizing"));
        return;
      }
      Object key = trackKey;
      Exchange next =
          new Exchange(
              get,
              requestId,
              (s, failure) -> {
                if (key != null) {
                  openPosts.remove(key, again);
                }
                done.accept(s, failure);
              },
              resumes);
      next.rebuild = rebuild;
      next.trackKey = trackKey;
      next.authRounds = authRounds + 1;
      next.sendOn(again);
    }

    private void take(String json) {
      if (json.isBlank()) {
        return; // e.g. the empty event a server sends first to prime resumption
      }
      if (era == McpClientConfig.Era.MODERN) {
        ModernSession.Incoming incoming = modern.incoming(json);
        if (requestId != null && requestId.equals(incoming.answers())) {
          answered = true;
        }
        if (incoming.json() != null) {
          dispatch(incoming.json());
        }
        return;
      }
      if (dispatch(json) instanceof McpSchema.JSONRPCResponse response
          && requestId != null
          && requestId.equals(response.id())) {
        answered = true;
        Request resuming = resumeRequest;
        if (resuming != null) {
          endedAfterAnswer = true;
          resuming.abort(new McpTransportException("answered"));
        }
      }
    }

    @Override
    public void onHeaders(Response response) {
      String session = response.getHeaders().get(SESSION_HEADER);
      if (session != null) {
        sessionId = session;
      }
      status = response.getStatus();
      wwwAuthenticate = response.getHeaders().get(HttpHeader.WWW_AUTHENTICATE);
      String type = response.getHeaders().get(HttpHeader.CONTENT_TYPE);
      if (status == 202 || status == 204 || (get && (status == 405 || status == 404))) {
        kind = BodyKind.DISCARD;
      } else if (status < 200 || status >= 300) {
        kind = BodyKind.ERROR_TEXT;
      } else if (type != null && type.startsWith(EVENT_STREAM)) {
        kind = BodyKind.EVENTS;
        events = SseParser.create(SSE_LIMITS, event -> take(event.data()));
      } else {
        kind = BodyKind.JSON;
      }
    }

    @Override
    public void onContent(Response response, ByteBuffer content) {
      switch (kind) {
        case DISCARD -> content.position(content.limit());
        case ERROR_TEXT -> append(content, MAX_ERROR_TEXT_BYTES);
        case JSON -> {
          if (bodyLength + content.remaining() > MAX_MESSAGE_BYTES) {
            response.abort(
                new McpTransportException(
                    "MCP server "
                        + serverName
                        + " sent an answer over "
                        + MAX_MESSAGE_BYTES
                        + " bytes"));
            return;
          }
          append(content, MAX_MESSAGE_BYTES);
        }
        case EVENTS -> {
          try {
            events.feed(content);
          } catch (CallError e) {
            // A limit the server broke is its connection failing (UNAVAILABLE, like an answer
            // over MAX_MESSAGE_BYTES): the parser's error is told, not chained, since a CallError
            // in the cause chain would be the call's error (CallError.from).
            response.abort(
                new McpTransportException("MCP server " + serverName + ": " + e.getMessage()));
          }
        }
      }
    }

    private void append(ByteBuffer content, int cap) {
      int take = Math.min(content.remaining(), cap - bodyLength);
      if (take > 0) {
        if (bodyLength + take > body.length) {
          body = Arrays.copyOf(body, Math.max(bodyLength + take, body.length * 2));
        }
        content.get(body, bodyLength, take);
        bodyLength += take;
      }
      content.position(content.limit());
    }

    @Override
    public void onComplete(Result result) {
      if (result.isFailed()) {
        if (endedAfterAnswer) {
          done.accept(status, null);
          return;
        }
        if (resumable()) {
          resume();
          return;
        }
        done.accept(status, transportFailure(result.getFailure()));
        return;
      }
      String text = new String(body, 0, bodyLength, StandardCharsets.UTF_8);
      switch (kind) {
        case ERROR_TEXT -> {
          if ((status == 401 || status == 403)
              && oauth != null
              && rebuild != null
              && authRounds < MAX_AUTH_ROUNDS) {
            oauth
                .challenge(status, wwwAuthenticate, sent.getHeaders().get(HttpHeader.AUTHORIZATION))
                .whenComplete(
                    (ok, error) -> {
                      if (error != null) {
                        done.accept(status, transportFailure(error));
                      } else {
                        sendAgain();
                      }
                    });
            return;
          }
          if (requestId != null && !requestId.equals(initializeId) && isErrorFor(text)) {
            // A JSON-RPC error with an HTTP error status (as 2026-07-28 answers -32021, -32602):
            // the request's answer, given to the caller with its code, not a broken connection.
            // Not for initialize: the SDK keeps only the message of a failed one, and the body
            // (the revisions a server supports, say) is what tells the user why.
            take(text);
            done.accept(status, null);
            return;
          }
          String message =
              "MCP server "
                  + serverName
                  + " answered HTTP "
                  + status
                  + (status == 404 ? " (nothing at that path: check the URL)" : "")
                  + (status == 401 && oauth == null
                      ? " (it wants authorization: configure OAuth or a token)"
                      : "")
                  + (text.isBlank() ? "" : ": " + Texts.oneLine(text));
          done.accept(
              status,
              status == 401 || status == 403
                  ? new McpTransportException(
                      message,
                      CallError.of(
                          status == 401 ? ErrorCode.UNAUTHENTICATED : ErrorCode.ACCESS_DENIED,
                          message))
                  : new McpTransportException(message));
          return;
        }
        case JSON -> {
          if (!text.isBlank()) {
            take(text);
          }
        }
        case EVENTS -> events.end();
        case DISCARD -> {}
      }
      if (resumable()) {
        resume();
        return;
      }
      if (requestId != null && kind != BodyKind.DISCARD && !answered) {
        // Without this the request would wait for its deadline.
        done.accept(
            status,
            new McpTransportException(
                "MCP server "
                    + serverName
                    + " ended the answer to request "
                    + requestId
                    + " without answering it"));
        return;
      }
      done.accept(status, null);
    }

    /** Whether {@code text} is a JSON-RPC error answering this exchange's request. */
    private boolean isErrorFor(String text) {
      try {
        JsonNode message = ToolMapper.JSON.readTree(text);
        return message.path("error").isObject()
            && message.has("id")
            && requestId.toString().equals(message.get("id").asString(""));
      } catch (RuntimeException e) {
        return false;
      }
    }

    /**
     * Whether a 2025 stream that ended before the request's answer can be resumed: its events had
     * ids, so the server can replay from the last one (a modern stream cannot be resumed).
     */
    private boolean resumable() {
      return requestId != null
          && !answered
          && !closed
          && kind == BodyKind.EVENTS
          && era != McpClientConfig.Era.MODERN
          && resumes < MAX_RESUMES
          && events.lastEventId().isPresent();
    }

    /**
     * Resumes the answer as streamable HTTP (2025) says: after the server's {@code retry} (one
     * second when it gave none), a GET with {@code Last-Event-ID}, on which the answer comes.
     */
    private void resume() {
      String lastEventId = events.lastEventId().orElseThrow();
      long wait = events.retryMillis().orElse(RECONNECT_DELAY.toMillis());
      LOG.debug(
          "MCP server {}: the answer to {} broke off; resuming after {} ms from event {}",
          serverName,
          requestId,
          wait,
          lastEventId);
      http.getScheduler()
          .schedule(
              () -> {
                if (closed) {
                  done.accept(
                      status, new McpTransportException("MCP client " + serverName + " closed"));
                  return;
                }
                Request get =
                    request(HttpMethod.GET)
                        .headers(
                            h -> {
                              h.put(HttpHeader.ACCEPT, EVENT_STREAM);
                              h.put("Last-Event-ID", lastEventId);
                            })
                        .idleTimeout(sdkIdleTimeoutMillis, TimeUnit.MILLISECONDS);
                Exchange next = new Exchange(false, requestId, done, resumes + 1);
                next.resumeRequest = get;
                openPosts.put(requestId, get);
                get.send(next);
              },
              wait,
              TimeUnit.MILLISECONDS);
    }
  }

  /** The most times one answer is resumed before the request fails. */
  private static final int MAX_RESUMES = 5;

  private Throwable transportFailure(Throwable failure) {
    if (failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null) {
      failure = failure.getCause();
    }
    if (failure instanceof McpTransportException || failure instanceof IOException) {
      return failure;
    }
    String what = failure.getMessage() == null ? failure.toString() : failure.getMessage();
    return new McpTransportException("MCP server " + serverName + ": " + what, failure);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.defer(
        () -> {
          if (closed) {
            return Mono.empty();
          }
          closed = true;
          abortOpenExchanges();
          if (oauth != null) {
            oauth.close();
          }
          String session = sessionId;
          Mono<Void> delete =
              session == null || !http.isStarted()
                  ? Mono.empty()
                  : Mono.create(
                      sink ->
                          request(HttpMethod.DELETE)
                              .timeout(DELETE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                              .send(result -> sink.success()));
          // Stopping waits for the client's threads, so it must not run on one of them.
          return delete.then(
              Mono.fromRunnable(this::stopClient).subscribeOn(Schedulers.boundedElastic()).then());
        });
  }

  /** Closes at once; also after a {@link #closeGracefully} that timed out before it stopped. */
  @Override
  public void close() {
    closed = true;
    abortOpenExchanges();
    if (oauth != null) {
      oauth.close();
    }
    Schedulers.boundedElastic().schedule(this::stopClient);
  }

  private void abortOpenExchanges() {
    McpTransportException closing =
        new McpTransportException("MCP client " + serverName + " closed");
    Request listen = listenStream;
    if (listen != null) {
      listen.abort(closing);
    }
    openPosts.values().forEach(post -> post.abort(closing));
    openPosts.clear();
  }

  private void stopClient() {
    try {
      http.stop();
    } catch (Exception e) {
      LOG.debug("Stopping the HTTP client of MCP server {} failed", serverName, e);
    }
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return mapper.convertValue(data, typeRef);
  }
}
