package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.testing.BrokerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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
  private static final Path BINARY =
      BrokerProcess.locate(
          "nats-server", "nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server");

  private final BrokerProcess process;

  private NatsServer(BrokerProcess process) {
    this.process = process;
  }

  /** A single server on a free port, accepting clients (it greets with INFO) when this returns. */
  public static NatsServer start(String... extraArgs) throws IOException {
    return new NatsServer(
        BrokerProcess.start(
            "nats-server",
            port -> {
              List<String> command = new ArrayList<>();
              command.add(BINARY.toString());
              command.addAll(List.of("-a", "127.0.0.1", "-p", String.valueOf(port)));
              command.addAll(List.of(extraArgs));
              return command;
            },
            NatsServer::greets));
  }

  /**
   * A single server whose configuration file (written to {@code dir}) lists {@code users}, each a
   * user object of {@code authorization { users = [...] }} such as {@link NatsPermissions#toConfig}
   * writes: only they can connect, with the permissions each one says.
   */
  public static NatsServer startWithUsers(Path dir, List<String> users) throws IOException {
    Path config = dir.resolve("nats-users.conf");
    java.nio.file.Files.writeString(
        config, "authorization { users = [\n" + String.join(",\n", users) + "\n] }\n");
    return start("-c", config.toString());
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
        start(
            "--cluster_name",
            "ops-test",
            "--cluster",
            "nats://127.0.0.1:" + routeA,
            "--routes",
            "nats://127.0.0.1:" + routeB);
    NatsServer b;
    try {
      b =
          start(
              "--cluster_name",
              "ops-test",
              "--cluster",
              "nats://127.0.0.1:" + routeB,
              "--routes",
              "nats://127.0.0.1:" + routeA);
    } catch (IOException | RuntimeException e) {
      a.kill();
      throw e;
    }
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
    return "nats://127.0.0.1:" + process.port();
  }

  public int port() {
    return process.port();
  }

  /** Kills the server at once (SIGKILL): clients see their sockets reset. */
  public void kill() throws InterruptedException {
    process.kill();
  }

  /** Starts the server again on the same port. */
  public void restart() throws IOException {
    process.restart();
  }

  @Override
  public void close() throws InterruptedException {
    process.close();
  }

  /** Whether the server greets a client with its INFO line. */
  private static boolean greets(int port) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      socket.setSoTimeout(1000);
      InputStream in = socket.getInputStream();
      return "INFO".equals(new String(in.readNBytes(4), StandardCharsets.US_ASCII));
    }
  }

  static int freePort() throws IOException {
    return BrokerProcess.freePort();
  }
}
