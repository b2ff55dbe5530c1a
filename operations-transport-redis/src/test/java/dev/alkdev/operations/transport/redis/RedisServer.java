package dev.alkdev.operations.transport.redis;

import dev.alkdev.operations.testing.BrokerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real {@code redis-server} process on a free loopback port, for tests: no persistence, started,
 * killed (SIGKILL, as a crash would) and restarted on the same port. The binary is Debian's {@code
 * redis-server} package ({@code scripts/install-deps.sh} installs it); the machine's own Redis
 * service is never used.
 */
public final class RedisServer implements AutoCloseable {
  private static final Path BINARY =
      BrokerProcess.locate(
          "redis-server", "redis-server", "/usr/bin/redis-server", "/usr/sbin/redis-server");

  private final BrokerProcess process;

  private RedisServer(BrokerProcess process) {
    this.process = process;
  }

  /**
   * A server on a free port, answering PING when this returns. Extra args: {@code --name value}.
   */
  public static RedisServer start(String... extraArgs) throws IOException {
    return new RedisServer(
        BrokerProcess.start(
            "redis-server", port -> command(port, List.of(extraArgs)), RedisServer::answersPing));
  }

  /** The user {@link #startWithUsers} adds for tests to look and set up with: every right. */
  public static final String ADMIN = "admin";

  public static final String ADMIN_PASSWORD = "admin-secret";

  /**
   * A server whose ACL file (written to {@code dir}) holds {@code users}, each an {@code ACL
   * SETUSER} line such as {@link RedisAcl#toAclSetuser} writes (a file line is the same after
   * {@code user}), and {@link #ADMIN}; the default user is off, so only they can connect.
   */
  public static RedisServer startWithUsers(Path dir, List<String> users) throws IOException {
    StringBuilder file = new StringBuilder("user default off\n");
    file.append("user ")
        .append(ADMIN)
        .append(" on >")
        .append(ADMIN_PASSWORD)
        .append(" ~* &* +@all\n");
    for (String user : users) {
      if (!user.startsWith("ACL SETUSER ")) {
        throw new IllegalArgumentException("not an ACL SETUSER line: " + user);
      }
      file.append("user ").append(user.substring("ACL SETUSER ".length())).append('\n');
    }
    Path acl = dir.resolve("users.acl");
    java.nio.file.Files.writeString(acl, file);
    return start("--aclfile", acl.toString());
  }

  private static List<String> command(int port, List<String> extraArgs) {
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
    return command;
  }

  private static boolean answersPing(int port) throws IOException {
    String reply = command(port, "PING");
    return reply.equals("+PONG") || reply.startsWith("-NOAUTH"); // up, if password-protected
  }

  public String url() {
    return "redis://127.0.0.1:" + process.port();
  }

  public int port() {
    return process.port();
  }

  /** Kills the server at once (SIGKILL): clients see their sockets reset. */
  public void kill() throws InterruptedException {
    process.kill();
  }

  /** Starts the server again on the same port (empty: nothing was persisted). */
  public void restart() throws IOException {
    process.restart();
  }

  @Override
  public void close() throws InterruptedException {
    process.close();
  }

  /**
   * Sends one command (inline, space-separated words without spaces) and returns the raw reply's
   * first line; for setting up and provoking faults from tests.
   */
  public String command(String... words) throws IOException {
    return command(process.port(), words);
  }

  private static String command(int port, String... words) throws IOException {
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

  static int freePort() throws IOException {
    return BrokerProcess.freePort();
  }
}
