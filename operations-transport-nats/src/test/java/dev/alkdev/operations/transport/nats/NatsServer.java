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
   * Two servers joined by a route (a cluster), each accepting clients when this returns; the route
   * itself may take a moment longer to form.
   */
  public static NatsServer[] startCluster() throws IOException {
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
    return new NatsServer[] {a, b};
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
