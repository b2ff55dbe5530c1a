package dev.alkdev.operations.transport.nats;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code nats-server} process on a free loopback port, for tests: started, killed (SIGKILL,
 * as a crash would) and restarted on the same port. The binary is Debian's {@code nats-server}
 * package ({@code scripts/install-deps.sh} installs it).
 */
public final class NatsServer implements AutoCloseable {
  private static final Path BINARY = locate();

  private final int port;
  private final List<String> extraArgs;
  private Process process;

  private NatsServer(int port, List<String> extraArgs) {
    this.port = port;
    this.extraArgs = extraArgs;
  }

  /** A single server on a free port, accepting clients when this returns. */
  public static NatsServer start(String... extraArgs) throws IOException {
    NatsServer server = new NatsServer(freePort(), List.of(extraArgs));
    server.launch();
    return server;
  }

  /**
   * Two servers joined by a route (a cluster), each accepting clients and the route carrying
   * messages both ways when this returns (a message published on one reaches a subscriber on the
   * other): without that wait a test's first messages could be lost while the route forms, which a
   * loaded machine stretches past any fixed sleep.
   */
  public static NatsServer[] startCluster() throws IOException, InterruptedException {
    int routeA = freePort();
    int routeB = freePort();
    NatsServer a =
        new NatsServer(
            freePort(),
            List.of(
                "--cluster_name",
                "ops-test",
                "--cluster",
                "nats://127.0.0.1:" + routeA,
                "--routes",
                "nats://127.0.0.1:" + routeB));
    NatsServer b =
        new NatsServer(
            freePort(),
            List.of(
                "--cluster_name",
                "ops-test",
                "--cluster",
                "nats://127.0.0.1:" + routeB,
                "--routes",
                "nats://127.0.0.1:" + routeA));
    a.launch();
    b.launch();
    try {
      awaitRoute(a, b);
      awaitRoute(b, a);
    } catch (IOException | RuntimeException e) {
      a.kill();
      b.kill();
      throw e;
    }
    return new NatsServer[] {a, b};
  }

  /** Waits (10 s at most) until a message published on {@code from} reaches {@code to}. */
  private static void awaitRoute(NatsServer from, NatsServer to) throws IOException {
    String subject = "_ops_test.route." + io.nats.client.NUID.nextGlobal();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    try (io.nats.client.Connection publisher = io.nats.client.Nats.connect(from.url());
        io.nats.client.Connection subscriber = io.nats.client.Nats.connect(to.url())) {
      io.nats.client.Subscription subscription = subscriber.subscribe(subject);
      subscriber.flush(java.time.Duration.ofSeconds(5));
      while (System.nanoTime() < deadline) {
        publisher.publish(subject, new byte[0]);
        if (subscription.nextMessage(java.time.Duration.ofMillis(100)) != null) {
          return;
        }
      }
      throw new IOException(
          "the route from " + from.url() + " to " + to.url() + " did not form within 10 s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the route", e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IOException("the server at " + to.url() + " did not answer a flush", e);
    }
  }

  public String url() {
    return "nats://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** Kills the server at once (SIGKILL): clients see their sockets reset. */
  public synchronized void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
      process = null;
    }
  }

  /** Starts the server again on the same port. */
  public synchronized void restart() throws IOException {
    launch();
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }

  private synchronized void launch() throws IOException {
    if (process != null) {
      throw new IllegalStateException("nats-server is running already on " + port);
    }
    List<String> command = new ArrayList<>();
    command.add(BINARY.toString());
    command.addAll(List.of("-a", "127.0.0.1", "-p", String.valueOf(port)));
    command.addAll(extraArgs);
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    awaitAccepting();
  }

  /** Waits (5 s at most) until the server greets a client with its INFO line. */
  private void awaitAccepting() throws IOException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    IOException last = null;
    while (System.nanoTime() - end < 0) {
      if (!process.isAlive()) {
        throw new IOException("nats-server exited with " + process.exitValue() + " on " + port);
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        socket.setSoTimeout(1000);
        InputStream in = socket.getInputStream();
        byte[] greeting = in.readNBytes(4);
        if ("INFO".equals(new String(greeting, StandardCharsets.US_ASCII))) {
          return;
        }
      } catch (IOException e) {
        last = e;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    throw new IOException("nats-server did not accept clients on " + port + " within 5 s", last);
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static Path locate() {
    for (String candidate : List.of("/usr/sbin/nats-server", "/usr/bin/nats-server")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, "nats-server");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "nats-server not found: run scripts/install-deps.sh (Debian package nats-server)");
  }
}
