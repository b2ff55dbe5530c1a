package dev.alkdev.operations.schema;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real HTTP server on 127.0.0.1 (an ephemeral port) that serves the files of one folder and
 * records every path it was asked for, so tests can prove what was, and was not, fetched.
 */
final class LoopbackServer implements AutoCloseable {
  private final HttpServer server;
  private final Path root;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final Map<String, String> redirects = new ConcurrentHashMap<>();

  private LoopbackServer(Path root) throws IOException {
    this.root = root.toAbsolutePath().normalize();
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::serve);
    server.start();
  }

  /** Starts a server for the files under {@code root}. */
  static LoopbackServer serving(Path root) throws IOException {
    return new LoopbackServer(root);
  }

  /** {@code http://127.0.0.1:<port>/}. */
  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
  }

  /** Answers {@code path} with a 302 to {@code location} instead of a file. */
  LoopbackServer redirect(String path, String location) {
    redirects.put(path, location);
    return this;
  }

  /** Every request path received so far, in order. */
  List<String> requests() {
    return List.copyOf(requests);
  }

  private void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      requests.add(path);
      String location = redirects.get(path);
      if (location != null) {
        exchange.getResponseHeaders().set("Location", location);
        exchange.sendResponseHeaders(302, -1);
        return;
      }
      Path file = root.resolve(path.substring(1)).normalize();
      if (!file.startsWith(root) || !Files.isRegularFile(file)) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      byte[] body = Files.readAllBytes(file);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
