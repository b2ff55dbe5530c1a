package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.http.HttpGateway;
import dev.alkdev.operations.mcpserver.McpServer;
import dev.alkdev.operations.serving.ConnectionLimits;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.transport.websocket.SpokePermissions;
import dev.alkdev.operations.transport.websocket.WebSocketHub;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * The server side of {@link CapacityRun}, in a JVM of its own so that its RSS and threads are its
 * own: one of our servers, or the bare Jetty server it is compared with, serving the same request
 * shapes. Prints {@code PORT n} when it listens and runs until its standard input closes.
 *
 * <pre>
 * java -Xmx1g -cp benchmarks.jar dev.alkdev.operations.benchmarks.CapacityServer KIND TICK_SECONDS
 * </pre>
 *
 * KIND: {@code gateway} | {@code jetty-sse} (streams), {@code mcp} | {@code jetty-mcp} (sessions),
 * {@code hub} | {@code jetty-ws} (connections).
 */
public final class CapacityServer {
  /** Room for every scenario's connections; the limits under test are the defaults otherwise. */
  static final int ROOM = 30_000;

  private CapacityServer() {}

  public static void main(String[] args) throws Exception {
    String kind = args[0];
    long tick = Long.parseLong(args[1]);
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "bench-tick");
              t.setDaemon(true);
              return t;
            });
    AutoCloseable running =
        switch (kind) {
          case "gateway" -> gateway(timer, tick);
          case "jetty-sse" -> bareJetty(timer, tick, false);
          case "mcp" -> mcp(timer, tick);
          case "jetty-mcp" -> bareJetty(timer, tick, true);
          case "hub" -> hub();
          case "jetty-ws" -> bareWebSocket();
          default -> throw new IllegalArgumentException("unknown kind " + kind);
        };
    System.in.read(); // until the launcher closes our stdin (or kills us)
    running.close();
    timer.shutdownNow();
  }

  /** The registry every one of our servers serves: a ticking stream and an echo. */
  static OperationRegistry registry(ScheduledExecutorService timer, long tickSeconds) {
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("bench", "echo").build(),
        (input, context) -> Map.of("message", input.path("message").asString("")));
    // One publisher for every call: one timer task and one subscriber set for all streams.
    Flow.Publisher<Object> ticks = ticks(timer, tickSeconds);
    registry.register(
        OperationSpec.builder("bench", "tick").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher((input, context) -> ticks));
    return registry;
  }

  /**
   * One item every tick for every subscriber, from one timer task, as the bare server writes its
   * streams: what is measured is each server's cost per stream, not a handler's timer per stream.
   */
  static Flow.Publisher<Object> ticks(ScheduledExecutorService timer, long tickSeconds) {
    Set<Ticked> subscribers = ConcurrentHashMap.newKeySet();
    timer.scheduleAtFixedRate(
        () -> {
          Map<String, Object> item = Map.of("t", System.currentTimeMillis());
          for (Ticked ticked : subscribers) {
            ticked.offer(item);
          }
        },
        tickSeconds,
        tickSeconds,
        TimeUnit.SECONDS);
    return subscriber -> {
      Ticked ticked = new Ticked(subscriber, subscribers);
      subscribers.add(ticked);
      subscriber.onSubscribe(ticked);
    };
  }

  /** One subscriber of {@link #ticks}: an item goes to it while it has demand. */
  private static final class Ticked extends AtomicLong implements Flow.Subscription {
    private final Flow.Subscriber<Object> subscriber;
    private final Set<Ticked> subscribers;

    Ticked(Flow.Subscriber<Object> subscriber, Set<Ticked> subscribers) {
      this.subscriber = subscriber;
      this.subscribers = subscribers;
    }

    void offer(Object item) {
      if (getAndUpdate(d -> d > 0 ? d - 1 : d) > 0) {
        subscriber.onNext(item);
      }
    }

    @Override
    public void request(long n) {
      getAndUpdate(d -> d + n < 0 ? Long.MAX_VALUE : d + n);
    }

    @Override
    public void cancel() {
      subscribers.remove(this);
    }
  }

  private static ConnectionLimits roomy() {
    return ConnectionLimits.defaults().withMaxConnections(ROOM).withMaxConnectionsPerClient(ROOM);
  }

  private static OperationServer pipeline(OperationRegistry registry) {
    return OperationServer.builder(registry)
        .maxConcurrentStreams(ROOM)
        .maxStreamsPerIdentity(ROOM)
        .build();
  }

  private static AutoCloseable gateway(ScheduledExecutorService timer, long tick) {
    OperationRegistry registry = registry(timer, tick);
    OperationServer server = pipeline(registry);
    HttpGateway gateway =
        HttpGateway.builder(server)
            .connectionLimits(roomy())
            .keepAliveInterval(Duration.ofSeconds(tick * 3))
            .start();
    System.out.println("PORT " + gateway.port());
    System.out.flush();
    return () -> {
      gateway.close();
      server.close();
      registry.close();
    };
  }

  private static AutoCloseable mcp(ScheduledExecutorService timer, long tick) {
    OperationRegistry registry = registry(timer, tick);
    OperationServer server = pipeline(registry);
    McpServer mcp =
        McpServer.builder(server)
            .sessions(ROOM, Duration.ofMinutes(30))
            .sessionsPerClient(ROOM)
            .connectionLimits(roomy())
            .build();
    var http = mcp.startHttp(0);
    System.out.println("PORT " + http.port());
    System.out.flush();
    return () -> {
      http.close();
      mcp.close();
      server.close();
      registry.close();
    };
  }

  private static AutoCloseable hub() {
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("bench", "echo").build(),
        (input, context) -> Map.of("message", input.path("message").asString("")));
    OperationServer server = pipeline(registry);
    WebSocketHub hub =
        WebSocketHub.builder()
            .permissions(SpokePermissions.allowAll())
            .maxConnections(ROOM)
            .connectionLimits(roomy())
            .pingInterval(Duration.ofMinutes(10))
            .idleTimeout(Duration.ofMinutes(30))
            .serve(server)
            .start();
    System.out.println("PORT " + hub.port());
    System.out.flush();
    return () -> {
      hub.close();
      server.close();
      registry.close();
    };
  }

  /**
   * The baseline for streams and MCP sessions: Jetty alone. {@code /echo} answers JSON; {@code
   * /sse} (and a GET of {@code /mcp}) holds a text/event-stream open and writes one event each tick
   * with an asynchronous write; a POST of {@code /mcp} answers JSON with a session id.
   */
  private static AutoCloseable bareJetty(
      ScheduledExecutorService timer, long tick, boolean mcpShape) throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool(200, 8);
    threads.setDaemon(true);
    Server jetty = new Server(threads);
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setIdleTimeout(Duration.ofMinutes(30).toMillis());
    jetty.addConnector(connector);
    Set<Response> streams = ConcurrentHashMap.newKeySet();
    byte[] event = "data: {\"t\":1}\n\n".getBytes(StandardCharsets.UTF_8);
    jetty.setHandler(
        new org.eclipse.jetty.server.Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            String path = Request.getPathInContext(request);
            boolean stream =
                path.equals("/sse") || (path.equals("/mcp") && request.getMethod().equals("GET"));
            if (stream) {
              response.setStatus(200);
              response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
              response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
              streams.add(response);
              response.write(
                  false,
                  ByteBuffer.wrap(": open\n\n".getBytes(StandardCharsets.UTF_8)),
                  Callback.NOOP);
              request.addFailureListener(
                  failure -> {
                    streams.remove(response);
                    callback.failed(failure);
                  });
              return true;
            }
            String body;
            if (path.equals("/mcp")) {
              body =
                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\","
                      + "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"bare\",\"version\":\"1\"}}}";
              response.getHeaders().put("Mcp-Session-Id", UUID.randomUUID().toString());
              response.setStatus(200);
              response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
              byte[] answer = body.getBytes(StandardCharsets.UTF_8);
              // Read the request body to its end, as a server would, then answer.
              org.eclipse.jetty.io.Content.Source.consumeAll(
                  request,
                  Callback.from(
                      () -> response.write(true, ByteBuffer.wrap(answer), callback),
                      callback::failed));
              return true;
            } else {
              Fields query = Request.extractQueryParameters(request);
              body = "{\"data\":{\"message\":\"" + query.getValue("message") + "\"}}";
            }
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
            return true;
          }
        });
    jetty.start();
    var task =
        timer.scheduleAtFixedRate(
            () -> {
              for (Response response : streams) {
                response.write(false, ByteBuffer.wrap(event), Callback.NOOP);
              }
            },
            tick,
            tick,
            TimeUnit.SECONDS);
    System.out.println("PORT " + connector.getLocalPort());
    System.out.flush();
    return () -> {
      task.cancel(false);
      jetty.stop();
    };
  }

  /** The baseline for hub connections: Jetty's WebSocket server holding idle connections. */
  private static AutoCloseable bareWebSocket() throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool(64, 4);
    threads.setDaemon(true);
    Server jetty = new Server(threads);
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    jetty.addConnector(connector);
    WebSocketUpgradeHandler upgrade =
        WebSocketUpgradeHandler.from(
            jetty,
            container -> {
              container.setIdleTimeout(Duration.ofMinutes(30));
              container.addMapping(
                  "/ws",
                  (req, resp, cb) -> {
                    resp.setAcceptedSubProtocol(WebSocketHub.SUBPROTOCOL);
                    return new EchoEndpoint();
                  });
            });
    jetty.setHandler(upgrade);
    jetty.start();
    System.out.println("PORT " + connector.getLocalPort());
    System.out.flush();
    return jetty::stop;
  }

  /** Echoes every binary message: the baseline's unary round trip. Public: Jetty calls it. */
  public static final class EchoEndpoint implements Session.Listener.AutoDemanding {
    private volatile Session session;

    @Override
    public void onWebSocketOpen(Session session) {
      this.session = session;
    }

    @Override
    public void onWebSocketBinary(
        ByteBuffer payload, org.eclipse.jetty.websocket.api.Callback callback) {
      byte[] copy = new byte[payload.remaining()];
      payload.get(copy);
      callback.succeed();
      session.sendBinary(ByteBuffer.wrap(copy), org.eclipse.jetty.websocket.api.Callback.NOOP);
    }
  }
}
