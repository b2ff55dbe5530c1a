package dev.alkdev.operations.openapi;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A loopback HTTP server (port 0) that records every request and answers per path prefix. */
final class RecordingServer implements AutoCloseable {
  /** One request as it arrived: the raw path and query, as the client wrote them. */
  record Request(String method, String rawPath, String rawQuery, Headers headers, byte[] body) {
    String target() {
      return rawQuery == null ? rawPath : rawPath + "?" + rawQuery;
    }

    String header(String name) {
      return headers.getFirst(name);
    }

    String bodyText() {
      return new String(body, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /** Writes a response. */
  @FunctionalInterface
  interface Responder {
    void respond(HttpExchange exchange) throws IOException;
  }

  final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Map<String, Responder> responders = new ConcurrentHashMap<>();
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();

  RecordingServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            URI uri = exchange.getRequestURI();
            byte[] body = exchange.getRequestBody().readAllBytes();
            requests.add(
                new Request(
                    exchange.getRequestMethod(),
                    uri.getRawPath(),
                    uri.getRawQuery(),
                    exchange.getRequestHeaders(),
                    body));
            Responder responder = null;
            String best = "";
            for (Map.Entry<String, Responder> entry : responders.entrySet()) {
              if (uri.getRawPath().startsWith(entry.getKey())
                  && entry.getKey().length() > best.length()) {
                best = entry.getKey();
                responder = entry.getValue();
              }
            }
            if (responder == null) {
              json(exchange, 200, "{\"ok\":true}");
            } else {
              responder.respond(exchange);
            }
          } catch (IOException | RuntimeException e) {
            // the client may have gone away (cancellation tests)
          }
        });
    server.start();
  }

  RecordingServer on(String pathPrefix, Responder responder) {
    responders.put(pathPrefix, responder);
    return this;
  }

  String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  int port() {
    return server.getAddress().getPort();
  }

  Request last() {
    return requests.get(requests.size() - 1);
  }

  static void json(HttpExchange exchange, int status, String json) throws IOException {
    send(
        exchange,
        status,
        "application/json",
        json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  static void send(HttpExchange exchange, int status, String contentType, byte[] body)
      throws IOException {
    if (contentType != null) {
      exchange.getResponseHeaders().set("Content-Type", contentType);
    }
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
