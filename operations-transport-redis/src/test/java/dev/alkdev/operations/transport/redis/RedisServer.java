package dev.alkdev.operations.transport.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
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
 * A real {@code redis-server} process on a free loopback port, for tests: no persistence, started,
 * killed (SIGKILL, as a crash would) and restarted on the same port. The binary is Debian's {@code
 * redis-server} package ({@code scripts/install-deps.sh} installs it); the machine's own Redis
 * service is never used.
 */
public final class RedisServer implements AutoCloseable {
  private static final Path BINARY = locate();

  private final int port;
  private final List<String> extraArgs;
  private Process process;

  private RedisServer(int port, List<String> extraArgs) {
    this.port = port;
    this.extraArgs = extraArgs;
  }

  /**
   * A server on a free port, answering PING when this returns. Extra args: {@code --name value}.
   */
  public static RedisServer start(String... extraArgs) throws IOException {
    RedisServer server = new RedisServer(freePort(), List.of(extraArgs));
    server.launch();
    return server;
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
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

  /** Starts the server again on the same port (empty: nothing was persisted). */
  public synchronized void restart() throws IOException {
    launch();
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }

  /**
   * Sends one command (inline, space-separated words without spaces) and returns the raw reply's
   * first line; for setting up and provoking faults from tests.
   */
  public String command(String... words) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
      socket.setSoTimeout(5000);
      StringBuilder request = new StringBuilder("*" + words.length + "\r\n");
      for (String word : words) {
        byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
        request.append('$').append(bytes.length).append("\r\n").append(word).append("\r\n");
      }
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder reply = new StringBuilder();
      int c;
      while ((c = in.read()) >= 0) {
        reply.append((char) c);
        if (reply.length() >= 2 && reply.charAt(0) != '$' && reply.toString().endsWith("\r\n")) {
          break;
        }
        if (reply.charAt(0) == '$' && reply.toString().endsWith("\r\n")) {
          int length = Integer.parseInt(reply.substring(1, reply.length() - 2));
          if (length < 0) {
            return "";
          }
          byte[] body = in.readNBytes(length + 2);
          return new String(body, 0, length, StandardCharsets.UTF_8);
        }
      }
      return reply.toString().trim();
    }
  }

  private synchronized void launch() throws IOException {
    if (process != null) {
      throw new IllegalStateException("redis-server is running already on " + port);
    }
    List<String> command = new ArrayList<>();
    command.add(BINARY.toString());
    List<String> rest = extraArgs;
    if (!rest.isEmpty() && !rest.get(0).startsWith("--")) {
      command.add(rest.get(0)); // a configuration file comes first
      rest = rest.subList(1, rest.size());
    }
    command.addAll(
        List.of(
            "--port", String.valueOf(port),
            "--bind", "127.0.0.1",
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--loglevel", "warning",
            "--dir", System.getProperty("java.io.tmpdir")));
    command.addAll(rest);
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      awaitAccepting();
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly(); // never left running behind a failed start
      process = null;
      throw e;
    }
  }

  /** Waits (5 s at most) until the server answers PING. */
  private void awaitAccepting() throws IOException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    IOException last = null;
    while (System.nanoTime() - end < 0) {
      if (!process.isAlive()) {
        throw new IOException("redis-server exited with " + process.exitValue() + " on " + port);
      }
      try {
        String reply = command("PING");
        if (reply.equals("+PONG") || reply.startsWith("-NOAUTH")) { // up, if password-protected
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
    throw new IOException("redis-server did not answer on " + port + " within 5 s", last);
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static Path locate() {
    for (String candidate : List.of("/usr/bin/redis-server", "/usr/sbin/redis-server")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, "redis-server");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "redis-server not found: run scripts/install-deps.sh (Debian package redis-server)");
  }
}
