package dev.alkdev.operations.sse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A raw-socket HTTP/1.1 server on a loopback port that records each request and lets a test script
 * each connection: write chunks with flushes, end the body, or drop the connection.
 */
final class SseTestServer implements AutoCloseable {

  /** Scripts connection number {@code index} (from 0). */
  interface Script {
    void run(int index, Exchange exchange) throws Exception;
  }

  /** One recorded request: the request line and lower-cased headers. */
  record Request(String line, Map<String, String> headers, long nanoTime) {}

  static final class Exchange {
    private final Socket socket;
    private final OutputStream out;

    Exchange(Socket socket) throws IOException {
      this.socket = socket;
      this.out = socket.getOutputStream();
    }

    void status(int status, String contentType) throws IOException {
      String head =
          "HTTP/1.1 "
              + status
              + " X\r\n"
              + (contentType == null ? "" : "Content-Type: " + contentType + "\r\n")
              + (status == 204 ? "" : "Transfer-Encoding: chunked\r\n")
              + "Connection: close\r\n"
              + "\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }

    void eventStream() throws IOException {
      status(200, "text/event-stream; charset=utf-8");
    }

    /** Writes one chunk and flushes it. */
    void send(String text) throws IOException {
      send(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes one chunk of raw bytes and flushes it. */
    void send(byte[] bytes) throws IOException {
      if (bytes.length == 0) {
        return; // an empty chunk would end the body
      }
      out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(bytes);
      out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }

    /** Ends the body cleanly. */
    void end() throws IOException {
      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }

    /** Drops the connection without ending the body. */
    void drop() throws IOException {
      socket.close();
    }
  }

  private final ServerSocket server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  final List<Request> requests = new CopyOnWriteArrayList<>();
  final List<Throwable> scriptErrors = new CopyOnWriteArrayList<>();

  SseTestServer(Script script) throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(
        () -> {
          int index = 0;
          while (!server.isClosed()) {
            Socket socket;
            try {
              socket = server.accept();
            } catch (IOException e) {
              return;
            }
            int connection = index++;
            threads.execute(() -> serve(socket, connection, script));
          }
        });
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/events");
  }

  private void serve(Socket socket, int index, Script script) {
    try (socket) {
      socket.setSoTimeout(10_000);
      socket.setTcpNoDelay(true);
      requests.add(readRequest(socket.getInputStream()));
      script.run(index, new Exchange(socket));
      // Keep the connection until the client closes it or the body has been read.
      socket.shutdownOutput();
      socket.getInputStream().read();
    } catch (Exception e) {
      scriptErrors.add(e);
    }
  }

  private static Request readRequest(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("request ended early");
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String[] lines = head.toString(StandardCharsets.US_ASCII).split("\r\n");
    Map<String, String> headers = new TreeMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(
            lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
    }
    return new Request(lines[0], headers, System.nanoTime());
  }

  @Override
  public void close() throws Exception {
    server.close();
    threads.shutdownNow();
    threads.awaitTermination(5, TimeUnit.SECONDS);
  }
}
