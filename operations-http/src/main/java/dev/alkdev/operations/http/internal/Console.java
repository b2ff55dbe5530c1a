package dev.alkdev.operations.http.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The web console: three files packaged in the jar (no asset is fetched from anywhere at run time),
 * served with a Content-Security-Policy that lets the page talk to this origin only.
 */
final class Console {
  private static final String FOLDER = "/dev/alkdev/operations/http/console-assets/";
  private static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'"
          + " data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private record Asset(byte[] bytes, String type) {}

  private final Map<String, Asset> assets;

  Console(String title) {
    String page =
        new String(read("index.html"), StandardCharsets.UTF_8).replace("{{title}}", html(title));
    this.assets =
        Map.of(
            "/", new Asset(page.getBytes(StandardCharsets.UTF_8), "text/html; charset=utf-8"),
            "/console.js", new Asset(read("console.js"), "text/javascript; charset=utf-8"),
            "/console.css", new Asset(read("console.css"), "text/css; charset=utf-8"));
  }

  /** Writes the asset at {@code path}; false if there is none (exact names only, no file paths). */
  boolean serve(String path, String method, Response response, Callback callback) {
    Asset asset = assets.get(path.equals("/index.html") ? "/" : path);
    if (asset == null) {
      return false;
    }
    if (!method.equals("GET") && !method.equals("HEAD")) {
      throw new GatewayHandler.MethodNotAllowed("GET", method);
    }
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, asset.type());
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    response.getHeaders().put("Content-Security-Policy", CSP);
    response.getHeaders().put("Referrer-Policy", "no-referrer");
    response.getHeaders().put("X-Frame-Options", "DENY");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, Integer.toString(asset.bytes().length));
    response.write(true, ByteBuffer.wrap(asset.bytes()), callback);
    return true;
  }

  private static byte[] read(String name) {
    try (InputStream in = Console.class.getResourceAsStream(FOLDER + name)) {
      if (in == null) {
        throw new IllegalStateException("The console asset " + name + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String html(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;")
        .replace("'", "&#39;");
  }
}
