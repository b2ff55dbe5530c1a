package dev.alkdev.operations.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A broker (nats-server, redis-server) as a process of the test's own on a free loopback port:
 * started and waited for until it answers, killed with SIGKILL on purpose, started again on the
 * same port, and never left running (close kills it; a start that fails kills what it started).
 */
public final class BrokerProcess implements AutoCloseable {
  /** Whether the broker on a port answers a client yet; throws IOException while it does not. */
  @FunctionalInterface
  public interface Readiness {
    boolean answers(int port) throws IOException;
  }

  private final String name;
  private final int port;
  private final IntFunction<List<String>> command;
  private final Readiness readiness;
  private Process process;

  private BrokerProcess(
      String name, int port, IntFunction<List<String>> command, Readiness readiness) {
    this.name = name;
    this.port = port;
    this.command = command;
    this.readiness = readiness;
  }

  /**
   * Starts {@code command} (given the port) on a free port, and returns once {@code readiness} says
   * the broker answers (5 s at most).
   *
   * @param name the broker's name, for messages
   */
  public static BrokerProcess start(
      String name, IntFunction<List<String>> command, Readiness readiness) throws IOException {
    BrokerProcess broker = new BrokerProcess(name, freePort(), command, readiness);
    broker.launch();
    return broker;
  }

  public int port() {
    return port;
  }

  /** Kills the broker at once (SIGKILL): clients see their sockets reset. */
  public synchronized void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
      process = null;
    }
  }

  /** Starts the broker again on the same port. */
  public synchronized void restart() throws IOException {
    launch();
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }

  private synchronized void launch() throws IOException {
    if (process != null) {
      throw new IllegalStateException(name + " is running already on " + port);
    }
    process =
        new ProcessBuilder(command.apply(port))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      awaitAnswering();
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly(); // never left running behind a failed start
      process = null;
      throw e;
    }
  }

  private void awaitAnswering() throws IOException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    IOException last = null;
    while (System.nanoTime() - end < 0) {
      if (!process.isAlive()) {
        throw new IOException(name + " exited with " + process.exitValue() + " on " + port);
      }
      try {
        if (readiness.answers(port)) {
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
    throw new IOException(name + " did not answer on " + port + " within 5 s", last);
  }

  /** A port free on the loopback address now. */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /**
   * The executable {@code name}: the first of {@code candidates} that exists, else the first on the
   * PATH.
   *
   * @throws IllegalStateException naming the package to install when there is none
   */
  public static Path locate(String name, String debianPackage, String... candidates) {
    for (String candidate : candidates) {
      if (Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        name + " not found: run scripts/install-deps.sh (Debian package " + debianPackage + ")");
  }
}
