package dev.alkdev.operations.spring.boot;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/** The API pets.yaml describes, on a free loopback port: GET /pets answers two pets. */
final class PetsBackend implements AutoCloseable {
  private final HttpServer server;
  final AtomicInteger requests = new AtomicInteger();

  private PetsBackend(HttpServer server) {
    this.server = server;
  }

  static PetsBackend start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    PetsBackend backend = new PetsBackend(server);
    server.createContext(
        "/pets",
        exchange -> {
          backend.requests.incrementAndGet();
          byte[] body =
              "[{\"id\":1,\"name\":\"Rex\"},{\"id\":2,\"name\":\"Tom\"}]"
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    return backend;
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
