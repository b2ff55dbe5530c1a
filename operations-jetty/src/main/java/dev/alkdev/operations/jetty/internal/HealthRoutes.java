package dev.alkdev.operations.jetty.internal;

import dev.alkdev.operations.serving.ServingStats;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /healthz} and {@code GET /readyz}, the same on every Jetty server of the project.
 * Liveness is 200 while the process serves. Readiness is 200 while the serving pipeline takes new
 * calls, and 503 with {@code Retry-After: 1} while it drains ({@code "draining"}) or a lane of it
 * is full ({@code "saturated"}), so a load balancer sends new work elsewhere; its body carries the
 * lanes' use. A server with no pipeline of its own is ready while it runs.
 */
public final class HealthRoutes {
  public static final String HEALTH = "/healthz";
  public static final String READY = "/readyz";

  private HealthRoutes() {}

  /** {@code next}, with the two routes answered in front of it. */
  public static Handler wrap(Handler next, Supplier<Optional<ServingStats>> stats) {
    Objects.requireNonNull(stats, "stats");
    return new Handler.Wrapper(Objects.requireNonNull(next, "next")) {
      @Override
      public boolean handle(Request request, Response response, Callback callback)
          throws Exception {
        if (answer(request, response, callback, stats)) {
          return true;
        }
        return super.handle(request, response, callback);
      }
    };
  }

  /**
   * Answers {@code request} if it is a GET of one of the two routes.
   *
   * @return whether it did
   */
  public static boolean answer(
      Request request,
      Response response,
      Callback callback,
      Supplier<Optional<ServingStats>> stats) {
    String path = Request.getPathInContext(request);
    if (!"GET".equals(request.getMethod()) || !(path.equals(HEALTH) || path.equals(READY))) {
      return false;
    }
    if (path.equals(HEALTH)) {
      write(response, callback, 200, "{\"status\":\"ok\"}");
      return true;
    }
    Optional<ServingStats> now = stats.get();
    if (now.isEmpty()) {
      write(response, callback, 200, "{\"status\":\"ready\"}");
      return true;
    }
    ServingStats s = now.get();
    String status = s.closed() ? "draining" : s.saturated() ? "saturated" : "ready";
    if (!s.ready()) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
    }
    write(
        response,
        callback,
        s.ready() ? 200 : 503,
        "{\"status\":\""
            + status
            + "\",\"calls\":"
            + s.calls()
            + ",\"maxConcurrentCalls\":"
            + s.maxConcurrentCalls()
            + ",\"streams\":"
            + s.streams()
            + ",\"maxConcurrentStreams\":"
            + s.maxConcurrentStreams()
            + ",\"waiting\":"
            + s.waiting()
            + "}");
    return true;
  }

  private static void write(Response response, Callback callback, int status, String json) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.write(true, ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)), callback);
  }
}
