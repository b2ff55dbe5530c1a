package dev.alkdev.operations.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Clients that hold a server's connections open the slow way, on raw sockets, for the tests of
 * every server's connection limits: a request head sent a line at a time, a body a byte at a time,
 * and connections from a chosen loopback address. Each says whether the server closed the
 * connection, bounded in time.
 */
public final class SlowClients {
  private SlowClients() {}

  /** A connection to {@code 127.0.0.1:port}, from {@code fromAddress} (a loopback address). */
  public static Socket connect(int port, String fromAddress) throws IOException {
    Socket socket = new Socket();
    socket.bind(new InetSocketAddress(InetAddress.getByName(fromAddress), 0));
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
    return socket;
  }

  /**
   * Sends a GET of {@code path} one header line every {@code pause}, never ending the head.
   *
   * @return true if the server closed the connection (or answered and closed it) within {@code
   *     within}
   */
  public static boolean trickleHead(int port, String path, Duration pause, Duration within)
      throws IOException, InterruptedException {
    try (Socket socket = connect(port, "127.0.0.1")) {
      OutputStream out = socket.getOutputStream();
      write(out, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n");
      long end = System.nanoTime() + within.toNanos();
      for (int line = 0; System.nanoTime() < end; line++) {
        if (closedWithin(socket, pause)) {
          return true;
        }
        try {
          write(out, "X-Slow-" + line + ": " + line + "\r\n");
        } catch (IOException e) {
          return true; // the server reset the connection
        }
      }
      return false;
    }
  }

  /**
   * Sends a POST of {@code path} whose head is whole and whose body (of {@code length} declared
   * bytes) comes one byte every {@code pause}.
   *
   * @return true if the server closed the connection within {@code within}
   */
  public static boolean trickleBody(
      int port, String path, String contentType, int length, Duration pause, Duration within)
      throws IOException, InterruptedException {
    try (Socket socket = connect(port, "127.0.0.1")) {
      OutputStream out = socket.getOutputStream();
      write(
          out,
          "POST "
              + path
              + " HTTP/1.1\r\nHost: 127.0.0.1:"
              + port
              + "\r\nContent-Type: "
              + contentType
              + "\r\nContent-Length: "
              + length
              + "\r\n\r\n");
      long end = System.nanoTime() + within.toNanos();
      for (int sent = 0; sent < length - 1 && System.nanoTime() < end; sent++) {
        if (closedWithin(socket, pause)) {
          return true;
        }
        try {
          out.write(' ');
          out.flush();
        } catch (IOException e) {
          return true;
        }
      }
      return closedWithin(socket, Duration.ofMillis(100));
    }
  }

  /**
   * Whether the server closes {@code socket} within {@code time}: its input ends or resets. Bytes
   * it sends meanwhile (an error answer) are read and dropped.
   */
  public static boolean closedWithin(Socket socket, Duration time) throws IOException {
    InputStream in = socket.getInputStream();
    long end = System.nanoTime() + time.toNanos();
    byte[] buffer = new byte[4096];
    while (true) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
      try {
        if (in.read(buffer) == -1) {
          return true;
        }
      } catch (SocketTimeoutException e) {
        return false;
      } catch (IOException e) {
        return true; // reset
      }
    }
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }
}
