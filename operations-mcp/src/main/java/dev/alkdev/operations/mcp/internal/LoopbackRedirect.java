package dev.alkdev.operations.mcp.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The loopback end of one authorization (RFC 8252, section 7.3): listens on 127.0.0.1 until the
 * browser is sent back to {@link #uri()} with the authorization response in its query, and hands
 * that response over. Only the first request to the redirect path counts; the listener is closed
 * with the authorization.
 */
final class LoopbackRedirect implements AutoCloseable {
  private static final String DONE_PAGE =
      "<!doctype html><meta charset=utf-8><title>Authorized</title>"
          + "<p>The authorization reached the MCP client. You can close this window.</p>";

  private final HttpServer server;
  private final ExecutorService thread;
  private final URI uri;
  private final CompletableFuture<URI> response = new CompletableFuture<>();

  /** Listens on {@code port} (0 for any free one) for a redirect to {@code path}. */
  LoopbackRedirect(int port, String path) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 8);
    thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "ops-oauth-redirect");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(thread);
    server.createContext(path, this::handle);
    server.start();
    uri =
        URI.create(
            "http://127.0.0.1:"
                + server.getAddress().getPort()
                + (path.startsWith("/") ? "" : "/")
                + path);
  }

  /** The redirect URI to register and to send in the authorization request. */
  URI uri() {
    return uri;
  }

  /** Completes with the URI the browser was sent to (its query holds the response). */
  CompletableFuture<URI> response() {
    return response;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())
          || !exchange.getRequestURI().getPath().equals(uri.getPath())) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      boolean first =
          response.complete(
              URI.create(
                  uri.toString()
                      + (exchange.getRequestURI().getRawQuery() == null
                          ? ""
                          : "?" + exchange.getRequestURI().getRawQuery())));
      byte[] page =
          (first ? DONE_PAGE : DONE_PAGE.replace("reached", "had already reached"))
              .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      exchange.getResponseHeaders().set("Cache-Control", "no-store");
      exchange.sendResponseHeaders(200, page.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(page);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    thread.shutdownNow();
  }
}
