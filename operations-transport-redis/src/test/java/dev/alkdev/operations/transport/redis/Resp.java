package dev.alkdev.operations.transport.redis;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A bare RESP2 client for tests: one connection to a Redis server, commands sent as words, replies
 * read whole (strings, integers, arrays, errors). For doing what the transport never would, as a
 * misbehaving client, and for looking at the server as an administrator.
 */
final class Resp implements AutoCloseable {
  /** An error reply: {@code -NOPERM ...}, {@code -ERR ...}. */
  record Error(String message) {}

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private Resp(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Connects to the server on {@code port} and authenticates as {@code user}. */
  static Resp connect(int port, String user, String password) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
    socket.setSoTimeout(5000);
    Resp resp = new Resp(socket);
    Object auth = resp.call("AUTH", user, password);
    if (!"OK".equals(auth)) {
      resp.close();
      throw new IOException("AUTH as " + user + " refused: " + auth);
    }
    return resp;
  }

  /** Sends one command and reads its reply. */
  Object call(String... words) throws IOException {
    StringBuilder request = new StringBuilder("*" + words.length + "\r\n");
    for (String word : words) {
      request
          .append('$')
          .append(word.getBytes(StandardCharsets.UTF_8).length)
          .append("\r\n")
          .append(word)
          .append("\r\n");
    }
    out.write(request.toString().getBytes(StandardCharsets.UTF_8));
    out.flush();
    return read();
  }

  /** A message the server pushed (a subscription's), if one comes within {@code wait}. */
  Optional<Object> poll(Duration wait) throws IOException {
    socket.setSoTimeout((int) Math.max(1, wait.toMillis()));
    try {
      return Optional.ofNullable(read());
    } catch (SocketTimeoutException e) {
      return Optional.empty();
    } finally {
      socket.setSoTimeout(5000);
    }
  }

  private Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new IOException("the server closed the connection");
    }
    String line = line();
    switch (type) {
      case '+':
        return line;
      case '-':
        return new Error(line);
      case ':':
        return Long.parseLong(line);
      case '$':
        {
          int length = Integer.parseInt(line);
          if (length < 0) {
            return null;
          }
          byte[] body = in.readNBytes(length + 2);
          return new String(body, 0, length, StandardCharsets.UTF_8);
        }
      case '*':
        {
          int count = Integer.parseInt(line);
          if (count < 0) {
            return null;
          }
          List<Object> items = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            items.add(read());
          }
          return items;
        }
      default:
        throw new IOException("not a RESP2 reply: " + (char) type + line);
    }
  }

  private String line() throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\r') {
        in.read(); // '\n'
        return line.toString();
      }
      line.append((char) c);
    }
    throw new IOException("the server closed the connection");
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
