package dev.alkdev.operations.transport.websocket.internal;

import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.PubSubFactory;
import dev.alkdev.operations.transport.websocket.SpokeOptions;
import dev.alkdev.operations.transport.websocket.WebSocketSpoke;
import java.net.URI;
import java.util.Optional;

/**
 * The {@code ws} kind for hosts such as {@code ops --ws URL} and {@code ops serve --connect URL}: a
 * spoke of the hub at {@code ws://host:port/ws} (or {@code wss://}), authenticated with the bearer
 * token in the environment variable {@code OPS_WS_TOKEN} when it is set, so that no token is
 * written on a command line.
 */
public final class WebSocketPubSubFactory implements PubSubFactory {

  @Override
  public Optional<PubSub> connect(Target target) {
    if (!target.kind().equals("ws")) {
      return Optional.empty();
    }
    URI uri;
    try {
      uri = new URI(target.url().trim());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException(
          "not a URL (expected e.g. ws://127.0.0.1:8080/ws): " + e.getReason());
    }
    if (uri.getUserInfo() != null) {
      throw new IllegalArgumentException(
          "put the token in OPS_WS_TOKEN, not in the URL (it would show in process lists)");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("no host (expected e.g. ws://127.0.0.1:8080/ws)");
    }
    SpokeOptions.Builder options =
        SpokeOptions.builder(
                uri.getPath() == null || uri.getPath().isEmpty() ? uri.resolve("/ws") : uri)
            .connectTimeout(target.connectTimeout());
    target.variable("OPS_WS_TOKEN").ifPresent(options::bearerToken);
    return Optional.of(WebSocketSpoke.connect(options.build()));
  }
}
