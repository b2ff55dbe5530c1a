package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.transport.websocket.Authenticator;
import dev.alkdev.operations.transport.websocket.SpokePermissions;
import dev.alkdev.operations.transport.websocket.WebSocketHub;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ops serve --ws PORT} (or {@code HOST:PORT}): a WebSocket hub at {@code /ws} serving the
 * run's operations, so that {@code ops --ws URL ...} and spokes in any language call them, and
 * spokes ({@code ops serve --connect URL}) add theirs. Loopback unless a host is given. Every
 * connection may call and serve: on loopback without a token (the machine's own processes), or with
 * the bearer token in {@code OPS_WS_TOKEN}, which a hub on any other interface requires. Browser
 * pages are refused (no Origin is allowed).
 */
final class HubListener implements Listener {
  static final String TOKEN_VARIABLE = "OPS_WS_TOKEN";

  private final WebSocketHub hub;

  private HubListener(WebSocketHub hub) {
    this.hub = hub;
  }

  static HubListener start(String listen, OperationServer server, NodeListener.Settings settings) {
    int colon = listen.lastIndexOf(':');
    String host = colon < 0 ? "127.0.0.1" : listen.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(listen.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535 || host.isEmpty()) {
      throw new Failure(
          ExitCodes.USAGE,
          "--ws " + listen + ": not a port or host:port",
          "e.g. --ws 8080 (127.0.0.1) or --ws 0.0.0.0:8080");
    }
    Optional<String> token =
        Optional.ofNullable(settings.environment().get(TOKEN_VARIABLE)).filter(t -> !t.isBlank());
    if (token.isEmpty() && !isLoopback(host)) {
      throw new Failure(
          ExitCodes.USAGE,
          "--ws " + listen + ": a hub beyond loopback needs a token",
          "set " + TOKEN_VARIABLE + " (spokes send it as a bearer token)");
    }
    WebSocketHub.Builder builder =
        WebSocketHub.builder()
            .host(host)
            .port(port)
            .permissions(SpokePermissions.allowAll())
            .serve(server)
            .heartbeatInterval(settings.heartbeat())
            .drainTimeout(settings.drainTimeout());
    settings.nodeId().ifPresent(builder::nodeId);
    settings.signer().ifPresent(builder::signer);
    token.ifPresent(
        t -> builder.authenticator(Authenticator.bearerTokens(Map.of(t, Identity.of("ops-ws")))));
    try {
      return new HubListener(builder.start());
    } catch (dev.alkdev.operations.CallError e) {
      throw new Failure(
          ExitCodes.UNAVAILABLE, "--ws " + listen + ": " + e.getMessage(), HttpListener.FREE_PORT);
    }
  }

  private static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public String kind() {
    return "ws";
  }

  @Override
  public String address() {
    return hub.uri().toString();
  }

  @Override
  public String detail() {
    return hub.nodeId().map(id -> "node " + id).orElse("");
  }

  @Override
  public Optional<PubSub> transport() {
    return Optional.of(hub.pubsub());
  }

  @Override
  public void close() {
    hub.close();
  }
}
