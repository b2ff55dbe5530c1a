package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.transport.websocket.SpokeOptions;
import dev.alkdev.operations.transport.websocket.WebSocketHub;
import dev.alkdev.operations.transport.websocket.WebSocketSpoke;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * Serving capacity (issue 31): K connections held open on one of our servers while unary calls run,
 * side by side in the same run with a bare Jetty server holding the same K connections of the same
 * shape. Each server runs in a JVM of its own ({@link CapacityServer}, {@code -Xmx1g}) so its RSS
 * and threads are its own; this JVM holds the K connections on one selector thread and times the
 * unary calls one after another.
 *
 * <ul>
 *   <li>streams: K SSE streams of a SUBSCRIPTION ticking every few seconds from a timer, on the
 *       HTTP gateway, against Jetty writing the same events itself;
 *   <li>sessions: K MCP sessions, each initialized and holding its GET stream, on the MCP server,
 *       against Jetty answering the same POST and holding the same GET;
 *   <li>hub: K WebSocket connections on the hub, against Jetty's WebSocket server.
 * </ul>
 *
 * <pre>
 * java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.CapacityRun [K,...] [streams,sessions,hub] [unarySeconds] \
 *   [repeats]
 * </pre>
 *
 * Before a server is measured idle, 1,000 connections of the surface's shape are opened on it and
 * closed (not for sessions, which outlive their stream): what the first connections cost once
 * (classes, compiled code, grown pools) is not counted per connection. Environment: {@code
 * CAPACITY_HISTOGRAMS} (a folder for class histograms and native memory summaries while loaded),
 * {@code CAPACITY_JVM_FLAGS} (extra flags for both servers alike).
 *
 * <p>Targets: every connection open within the 1 GiB heap; unary p99 at most 50 ms while they are
 * open; RSS per connection at most 2x the bare Jetty server's.
 */
public final class CapacityRun {
  private static final long TICK_SECONDS = 5;

  /** Connections opened and closed on each server before it is measured idle (streams, hub). */
  private static final int WARM_UP_CONNECTIONS = 1_000;

  private static final double MIB = 1024.0 * 1024.0;

  private CapacityRun() {}

  record Result(
      String surface,
      int k,
      String server,
      int opened,
      boolean alive,
      double p50Ms,
      double p99Ms,
      long rssIdleKb,
      long rssLoadedKb,
      long heapIdleKb,
      long heapLoadedKb,
      int threadsIdle,
      int threadsLoaded) {
    double kbPerConnection() {
      return opened == 0 ? 0 : (rssLoadedKb - rssIdleKb) / (double) opened;
    }

    /** Live heap per connection: the heap in use after a full GC, loaded less idle, over K. */
    double heapBytesPerConnection() {
      return opened == 0 ? 0 : (heapLoadedKb - heapIdleKb) * 1024.0 / opened;
    }

    double threadsPerConnection() {
      return opened == 0 ? 0 : (threadsLoaded - threadsIdle) / (double) opened;
    }
  }

  public static void main(String[] args) throws Exception {
    int[] ks =
        Arrays.stream((args.length > 0 ? args[0] : "1000,10000").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    List<String> surfaces =
        List.of((args.length > 1 ? args[1] : "streams,sessions,hub").split(","));
    int unarySeconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    // Each pair run this many times, ours and the bare server in turn; the verdicts take the
    // median of each: a bare server's RSS per connection alone varies by half between runs.
    int repeats = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    String jdk = System.getProperty("java.version");
    StringBuilder table = new StringBuilder();
    table.append("JDK ").append(jdk).append(", ").append(Instant.now()).append("\n\n");
    table.append(
        "| surface | K | server | open | unary p50 ms | unary p99 ms | RSS idle MiB | RSS loaded"
            + " MiB | KiB per connection | live heap bytes per connection | threads idle | threads"
            + " loaded | threads per connection |\n");
    table.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    StringBuilder verdicts = new StringBuilder();
    for (String surface : surfaces) {
      for (int k : ks) {
        String[] kinds =
            switch (surface) {
              case "streams" -> new String[] {"gateway", "jetty-sse"};
              case "sessions" -> new String[] {"mcp", "jetty-mcp"};
              case "hub" -> new String[] {"hub", "jetty-ws"};
              default -> throw new IllegalArgumentException("unknown surface " + surface);
            };
        List<Result> oursRuns = new ArrayList<>();
        List<Result> bareRuns = new ArrayList<>();
        for (int run = 0; run < repeats; run++) {
          oursRuns.add(scenario(surface, kinds[0], k, unarySeconds));
          bareRuns.add(scenario(surface, kinds[1], k, unarySeconds));
          for (Result r : List.of(oursRuns.get(run), bareRuns.get(run))) {
            table.append(row(r));
            System.out.print(row(r));
          }
        }
        Result ours = median(oursRuns);
        Result bare = median(bareRuns);
        double memoryRatio = ours.kbPerConnection() / Math.max(0.001, bare.kbPerConnection());
        double heapRatio =
            ours.heapBytesPerConnection() / Math.max(0.001, bare.heapBytesPerConnection());
        String verdict =
            String.format(
                "%s K=%d, the median of %d runs: open %d/%d within -Xmx1g %s; unary p99 %.1f ms"
                    + " (target <= 50) %s;"
                    + " memory per connection %.2fx bare Jetty (target <= 2x) %s"
                    + " (live heap %.2fx)%n",
                surface,
                k,
                repeats,
                ours.opened(),
                k,
                ours.opened() == k && ours.alive() ? "PASS" : "FAIL",
                ours.p99Ms(),
                ours.p99Ms() <= 50 ? "PASS" : "FAIL",
                memoryRatio,
                memoryRatio <= 2 ? "PASS" : "FAIL",
                heapRatio);
        verdicts.append("- ").append(verdict);
        System.out.print(verdict);
      }
    }
    table.append("\n").append(verdicts);
    Path out =
        Path.of(
            "bench-results",
            "capacity-jdk"
                + Runtime.version().feature()
                + "-"
                + System.currentTimeMillis()
                + ".md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, table);
    System.out.println();
    System.out.println(table);
    System.out.println("written to " + out);
  }

  /** The run with the median memory per connection (the lower middle one of an even count). */
  private static Result median(List<Result> runs) {
    List<Result> sorted = new ArrayList<>(runs);
    sorted.sort(java.util.Comparator.comparingDouble(Result::kbPerConnection));
    return sorted.get((sorted.size() - 1) / 2);
  }

  private static String row(Result r) {
    return String.format(
        "| %s | %,d | %s | %,d%s | %.2f | %.2f | %.0f | %.0f | %.1f | %,.0f | %d | %d | %.3f |%n",
        r.surface(),
        r.k(),
        r.server(),
        r.opened(),
        r.alive() ? "" : " (died)",
        r.p50Ms(),
        r.p99Ms(),
        r.rssIdleKb() / 1024.0,
        r.rssLoadedKb() / 1024.0,
        r.kbPerConnection(),
        r.heapBytesPerConnection(),
        r.threadsIdle(),
        r.threadsLoaded(),
        r.threadsPerConnection());
  }

  // ------------------------------------------------------------------ one scenario

  private static Result scenario(String surface, String kind, int k, int unarySeconds)
      throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    File log = File.createTempFile("capacity-" + kind, ".log");
    List<String> command = new ArrayList<>(List.of(java, "-Xmx1g", "-XX:+ExitOnOutOfMemoryError"));
    // Extra flags for both servers alike, to look into a figure (native memory tracking, say).
    String extra = System.getenv("CAPACITY_JVM_FLAGS");
    if (extra != null && !extra.isBlank()) {
      command.addAll(List.of(extra.trim().split("\\s+")));
    }
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            CapacityServer.class.getName(),
            kind,
            Long.toString(TICK_SECONDS)));
    Process child = new ProcessBuilder(command).redirectError(log).start();
    try (ConnectionHolder holder = new ConnectionHolder()) {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      // Flags such as -XX:StartFlightRecording print a line of their own first.
      for (int skipped = 0; line != null && !line.startsWith("PORT ") && skipped < 20; skipped++) {
        line = out.readLine();
      }
      if (line == null || !line.startsWith("PORT ")) {
        throw new IllegalStateException(kind + " did not start; see " + log);
      }
      int port = Integer.parseInt(line.substring(5).trim());
      Unary unary = Unary.of(kind, port);
      unary.time(Duration.ofSeconds(2)); // warm-up
      // Sessions are made after the idle figure: they are what is measured.
      boolean sessions = surface.equals("sessions");
      IntFunction<byte[]> request = sessions ? null : requests(kind, port, k);
      if (!sessions) {
        // The connections' own path warmed up too (classes loaded, code compiled, pools grown):
        // a one-off cost of the process, not of each connection. Not for sessions: a session
        // outlives its closed GET stream, and would count as idle memory.
        try (ConnectionHolder warmUp = new ConnectionHolder()) {
          warmUp.open(port, Math.min(k, WARM_UP_CONNECTIONS), request, Duration.ofSeconds(60));
        }
        // A server sees a closed stream at its next write: one tick, and some margin, so that
        // none of the warm-up's is still counted (idle, or against the caps of K).
        Thread.sleep(TimeUnit.SECONDS.toMillis(TICK_SECONDS) + 2000);
      }
      Thread.sleep(1000);
      long[] idle = status(child.pid());
      if (sessions) {
        request = requests(kind, port, k);
      }

      int opened = holder.open(port, k, request, Duration.ofSeconds(180));
      Thread.sleep(3000);
      long[] loadedBefore = status(child.pid());
      double[] latencies = unary.time(Duration.ofSeconds(unarySeconds));
      long[] loadedAfter = status(child.pid());
      histogram(child.pid(), kind, k);
      unary.close();
      Arrays.sort(latencies);
      return new Result(
          surface,
          k,
          label(kind),
          opened,
          child.isAlive(),
          percentile(latencies, 0.50),
          percentile(latencies, 0.99),
          idle[0],
          Math.max(loadedBefore[0], loadedAfter[0]),
          idle[2],
          Math.max(loadedBefore[2], loadedAfter[2]),
          (int) idle[1],
          (int) Math.max(loadedBefore[1], loadedAfter[1]));
    } finally {
      child.getOutputStream().close();
      if (!child.waitFor(10, TimeUnit.SECONDS)) {
        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      Thread.sleep(2000); // let the closed sockets settle before the next server
    }
  }

  private static String label(String kind) {
    return switch (kind) {
      case "gateway" -> "HTTP gateway";
      case "jetty-sse" -> "bare Jetty (SSE)";
      case "mcp" -> "MCP server";
      case "jetty-mcp" -> "bare Jetty (same shape)";
      case "hub" -> "WebSocket hub";
      case "jetty-ws" -> "bare Jetty WebSocket";
      default -> kind;
    };
  }

  /** The bytes that open connection {@code i}: a stream, a session's GET, an upgrade. */
  private static IntFunction<byte[]> requests(String kind, int port, int k) throws Exception {
    String host = "Host: 127.0.0.1:" + port + "\r\n";
    return switch (kind) {
      case "gateway", "jetty-sse" -> {
        byte[] get =
            ("GET "
                    + (kind.equals("gateway") ? "/ops/bench.tick" : "/sse")
                    + " HTTP/1.1\r\n"
                    + host
                    + "Accept: text/event-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        yield i -> get;
      }
      case "mcp", "jetty-mcp" -> {
        // Each session initialized first (one after another), then its GET stream held open.
        List<String> sessions = initializeSessions(port, k);
        yield i ->
            ("GET /mcp HTTP/1.1\r\n"
                    + host
                    + "Accept: text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"
                    + "Mcp-Session-Id: "
                    + sessions.get(i)
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
      }
      case "hub", "jetty-ws" -> {
        byte[] upgrade =
            ("GET /ws HTTP/1.1\r\n"
                    + host
                    + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Protocol: "
                    + WebSocketHub.SUBPROTOCOL
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        yield i -> upgrade;
      }
      default -> throw new IllegalArgumentException(kind);
    };
  }

  static final String INIT =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}";

  private static List<String> initializeSessions(int port, int k) throws Exception {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest init =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(INIT))
            .build();
    List<String> ids = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      HttpResponse<Void> response = client.send(init, HttpResponse.BodyHandlers.discarding());
      ids.add(response.headers().firstValue("mcp-session-id").orElseThrow());
    }
    return ids;
  }

  private static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
  }

  /**
   * With the environment variable CAPACITY_HISTOGRAMS set to a folder, writes the server's class
   * histogram of live objects there while its K connections are open ({@code
   * histogram-<kind>-<k>.txt}): what each connection costs, class by class.
   */
  private static void histogram(long pid, String kind, int k)
      throws IOException, InterruptedException {
    String folder = System.getenv("CAPACITY_HISTOGRAMS");
    if (folder == null || folder.isBlank()) {
      return;
    }
    Path jcmd = jcmd();
    Path out = Path.of(folder).resolve("histogram-" + kind + "-" + k + ".txt");
    Files.createDirectories(out.getParent());
    new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
        .redirectErrorStream(true)
        .redirectOutput(out.toFile())
        .start()
        .waitFor(60, TimeUnit.SECONDS);
    // Answers only with -XX:NativeMemoryTracking=summary among CAPACITY_JVM_FLAGS.
    new ProcessBuilder(jcmd.toString(), Long.toString(pid), "VM.native_memory", "summary")
        .redirectErrorStream(true)
        .redirectOutput(out.resolveSibling("native-" + kind + "-" + k + ".txt").toFile())
        .start()
        .waitFor(60, TimeUnit.SECONDS);
  }

  /**
   * VmRSS (KiB) and Threads of a process, from /proc, after a full GC in it ({@code jcmd GC.run}):
   * what it holds, not the garbage its allocation rate let the heap grow by (G1 gives the space of
   * a shrunk heap back after a full collection).
   */
  static long[] status(long pid) throws IOException, InterruptedException {
    Path jcmd = jcmd();
    long heapUsed = 0;
    if (Files.isExecutable(jcmd)) {
      new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.run")
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor(30, TimeUnit.SECONDS);
      Thread.sleep(500);
      Process info =
          new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.heap_info")
              .redirectErrorStream(true)
              .start();
      String text = new String(info.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      info.waitFor(30, TimeUnit.SECONDS);
      Matcher used = HEAP_USED.matcher(text);
      if (used.find()) {
        heapUsed = Long.parseLong(used.group(1));
      }
    }
    long rss = 0;
    long threads = 0;
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
      } else if (line.startsWith("Threads:")) {
        threads = Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return new long[] {rss, threads, heapUsed};
  }

  /** The jcmd beside this JVM's java, the same JDK as the servers'. */
  private static Path jcmd() {
    String java = ProcessHandle.current().info().command().orElse("java");
    return Path.of(java).resolveSibling("jcmd");
  }

  // G1's line of GC.heap_info: "garbage-first heap   total 98304K, used 13417K [..." (JDK 17);
  // "total reserved 1048576K, committed 98304K, used 13417K [..." (JDK 25)
  private static final Pattern HEAP_USED = Pattern.compile("heap\\s+total[^\\n]*? used (\\d+)K");

  // ------------------------------------------------------------------ unary calls

  /** Unary calls one after another against a server, timed. */
  private interface Unary extends AutoCloseable {
    double[] time(Duration duration) throws Exception;

    @Override
    default void close() throws Exception {}

    static Unary of(String kind, int port) throws Exception {
      return switch (kind) {
        case "gateway", "jetty-sse", "jetty-mcp" -> {
          HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
          String path = kind.equals("gateway") ? "/ops/bench.echo?message=x" : "/echo?message=x";
          HttpRequest request =
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build();
          yield duration ->
              timed(
                  duration,
                  () -> client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        case "mcp" -> {
          HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
          String session = initializeSessions(port, 1).get(0);
          HttpRequest call =
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json, text/event-stream")
                  .header("Mcp-Session-Id", session)
                  .header("MCP-Protocol-Version", "2025-11-25")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                              + "{\"name\":\"bench.echo\",\"arguments\":{\"message\":\"x\"}}}"))
                  .build();
          yield duration ->
              timed(
                  duration,
                  () -> client.send(call, HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        case "hub" -> {
          WebSocketSpoke spoke =
              WebSocketSpoke.connect(
                  SpokeOptions.builder(URI.create("ws://127.0.0.1:" + port + "/ws")).build());
          PendingRequestMap calls = PendingRequestMap.create(spoke);
          yield new Unary() {
            @Override
            public double[] time(Duration duration) throws Exception {
              return timed(
                  duration,
                  () -> {
                    calls
                        .call(
                            "bench.echo",
                            Map.of("message", "x"),
                            CallOptions.defaults().withTimeout(Duration.ofSeconds(10)))
                        .get(10, TimeUnit.SECONDS);
                    return 200;
                  });
            }

            @Override
            public void close() {
              calls.close();
              spoke.close();
            }
          };
        }
        case "jetty-ws" -> {
          WebSocketClient client = new WebSocketClient();
          client.start();
          EchoListener listener = new EchoListener();
          ClientUpgradeRequest upgrade =
              new ClientUpgradeRequest(URI.create("ws://127.0.0.1:" + port + "/ws"));
          upgrade.setSubProtocols(WebSocketHub.SUBPROTOCOL);
          client.connect(listener, upgrade).get(10, TimeUnit.SECONDS);
          byte[] payload = "{\"message\":\"x\"}".getBytes(StandardCharsets.UTF_8);
          yield new Unary() {
            @Override
            public double[] time(Duration duration) throws Exception {
              return timed(
                  duration,
                  () -> {
                    listener.next = new CompletableFuture<>();
                    listener.session.sendBinary(ByteBuffer.wrap(payload), Callback.NOOP);
                    listener.next.get(10, TimeUnit.SECONDS);
                    return 200;
                  });
            }

            @Override
            public void close() throws Exception {
              client.stop();
            }
          };
        }
        default -> throw new IllegalArgumentException(kind);
      };
    }
  }

  /** Public: Jetty calls its methods reflectively. */
  public static final class EchoListener implements Session.Listener.AutoDemanding {
    volatile Session session;
    volatile CompletableFuture<Void> next = new CompletableFuture<>();

    @Override
    public void onWebSocketOpen(Session session) {
      this.session = session;
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
      callback.succeed();
      next.complete(null);
    }
  }

  private interface Call {
    int run() throws Exception;
  }

  /** One call after another for {@code duration}, at most one every 5 ms; each call's ms. */
  private static double[] timed(Duration duration, Call call) throws Exception {
    List<Double> out = new ArrayList<>();
    long end = System.nanoTime() + duration.toNanos();
    while (System.nanoTime() < end) {
      long start = System.nanoTime();
      int status = call.run();
      long took = System.nanoTime() - start;
      if (status != 200) {
        throw new IllegalStateException("a unary call answered " + status);
      }
      out.add(took / 1e6);
      long pause = TimeUnit.MILLISECONDS.toNanos(5) - took;
      if (pause > 0) {
        Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
      }
    }
    return out.stream().mapToDouble(Double::doubleValue).toArray();
  }

  // ------------------------------------------------------------------ the K connections

  /**
   * K connections on one selector thread: each connects (from 127.0.0.2 to 127.0.0.9 in turn, so
   * ephemeral ports do not run out), writes its request, and from then on everything it receives is
   * read and dropped. A connection counts as open once its answer's status line (200 or 101) has
   * arrived. At most 256 connect at once, as a real crowd arrives.
   */
  private static final class ConnectionHolder implements AutoCloseable {
    private final Selector selector;
    private final List<SocketChannel> channels = new ArrayList<>();

    ConnectionHolder() throws IOException {
      this.selector = Selector.open();
    }

    private static final class State {
      final byte[] request;
      final ByteBuffer toWrite;
      boolean open;
      boolean dead;
      final StringBuilder head = new StringBuilder();

      State(byte[] request) {
        this.request = request;
        this.toWrite = ByteBuffer.wrap(request);
      }
    }

    int open(int port, int k, IntFunction<byte[]> request, Duration timeout) throws IOException {
      ByteBuffer sink = ByteBuffer.allocateDirect(64 * 1024);
      int started = 0;
      int opened = 0;
      int dead = 0;
      long end = System.nanoTime() + timeout.toNanos();
      InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
      while ((opened + dead < k) && System.nanoTime() < end) {
        while (started < k && started - opened - dead < 256) {
          SocketChannel channel = SocketChannel.open();
          channel.configureBlocking(false);
          channel.setOption(StandardSocketOptions.SO_LINGER, 0);
          channel.bind(
              new InetSocketAddress(InetAddress.getByName("127.0.0." + (2 + started % 8)), 0));
          channel.connect(target);
          channel.register(selector, SelectionKey.OP_CONNECT, new State(request.apply(started)));
          channels.add(channel);
          started++;
        }
        selector.select(100);
        for (SelectionKey key : selector.selectedKeys()) {
          State state = (State) key.attachment();
          SocketChannel channel = (SocketChannel) key.channel();
          try {
            if (key.isConnectable() && channel.finishConnect()) {
              key.interestOps(SelectionKey.OP_WRITE);
            }
            if (key.isValid() && key.isWritable()) {
              channel.write(state.toWrite);
              if (!state.toWrite.hasRemaining()) {
                key.interestOps(SelectionKey.OP_READ);
              }
            }
            if (key.isValid() && key.isReadable()) {
              sink.clear();
              int n = channel.read(sink);
              if (n < 0) {
                throw new IOException("closed by the server");
              }
              if (!state.open) {
                sink.flip();
                while (sink.hasRemaining() && state.head.length() < 16) {
                  state.head.append((char) sink.get());
                }
                if (state.head.length() >= 12) {
                  String status = state.head.substring(9, 12);
                  if (status.equals("200") || status.equals("101")) {
                    state.open = true;
                    opened++;
                  } else {
                    throw new IOException("answered " + state.head);
                  }
                }
              }
            }
          } catch (IOException e) {
            if (!state.dead) {
              state.dead = true;
              if (state.open) {
                opened--;
              }
              dead++;
            }
            key.cancel();
            channel.close();
          }
        }
        selector.selectedKeys().clear();
      }
      // Keep reading (and dropping) in the background while the unary calls run.
      Thread reader =
          new Thread(
              () -> {
                try {
                  while (selector.isOpen()) {
                    selector.select(100);
                    for (SelectionKey key : selector.selectedKeys()) {
                      try {
                        sink.clear();
                        if (((SocketChannel) key.channel()).read(sink) < 0) {
                          key.cancel();
                        }
                      } catch (IOException e) {
                        key.cancel();
                      }
                    }
                    selector.selectedKeys().clear();
                  }
                } catch (Exception e) {
                  // closed
                }
              },
              "capacity-reader");
      reader.setDaemon(true);
      reader.start();
      return opened;
    }

    @Override
    public void close() throws IOException {
      selector.close();
      for (SocketChannel channel : channels) {
        channel.close();
      }
    }
  }
}
