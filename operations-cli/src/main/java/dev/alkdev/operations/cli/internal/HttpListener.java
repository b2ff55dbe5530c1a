package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.http.HttpGateway;
import dev.alkdev.operations.serving.OperationServer;
import java.time.Duration;

/**
 * {@code ops serve --http PORT} (or {@code HOST:PORT}): the run's operations over HTTP through the
 * gateway, with its OpenAPI document and web console. {@code PORT} alone binds 127.0.0.1.
 */
final class HttpListener implements Listener {
  private final HttpGateway gateway;
  private final Duration drainTimeout;
  private final boolean loopback;

  private HttpListener(HttpGateway gateway, Duration drainTimeout, boolean loopback) {
    this.gateway = gateway;
    this.drainTimeout = drainTimeout;
    this.loopback = loopback;
  }

  /** The hint when a listener cannot bind; the same for every listener of serve. */
  static final String FREE_PORT = "pick a free port, or 0 for any";

  static HttpListener start(
      String address, OperationServer server, Duration drainTimeout, ServeMetrics metrics) {
    String host = "127.0.0.1";
    String port = address;
    int colon = address.lastIndexOf(':');
    if (colon >= 0) {
      host = address.substring(0, colon);
      port = address.substring(colon + 1);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
    }
    int number;
    try {
      number = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      number = -1;
    }
    if (number < 0 || number > 65535 || host.isBlank()) {
      throw new Failure(
          ExitCodes.USAGE,
          "--http " + address + " is not PORT or HOST:PORT",
          "for example --http 8080 (127.0.0.1) or --http 0.0.0.0:8080 (every interface)");
    }
    HttpGateway gateway;
    try {
      gateway =
          HttpGateway.builder(server)
              .host(host)
              .port(number)
              .route(ServeMetrics.PATH, ServeMetrics.CONTENT_TYPE, metrics::scrape)
              .start();
    } catch (IllegalArgumentException e) {
      throw new Failure(ExitCodes.USAGE, "--http " + address + ": " + e.getMessage());
    } catch (CallError e) {
      throw new Failure(
          ExitCodes.UNAVAILABLE, "--http " + address + ": " + e.getMessage(), FREE_PORT);
    }
    return new HttpListener(gateway, drainTimeout, isLoopback(host));
  }

  private static boolean isLoopback(String host) {
    try {
      return java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false; // the gateway bound it, so this does not happen; warn rather than hide
    }
  }

  @Override
  public String kind() {
    return "http";
  }

  @Override
  public String address() {
    return gateway.uri().toString();
  }

  @Override
  public String detail() {
    return "console /, document /openapi.json, operations /ops, metrics /metrics"
        + (loopback ? "" : "; no authentication: only operations that need no scope");
  }

  @Override
  public void close() {
    try {
      gateway.drain(drainTimeout);
    } catch (RuntimeException e) {
      // close() never throws: the listener is going anyway
    }
  }
}
