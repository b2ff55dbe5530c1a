package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.testing.TcpProxy;
import dev.alkdev.operations.testing.TransportConformanceTest;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The call protocol between two spokes of one hub: the serving side and the calling side are
 * separate connections; the calling side goes through a {@link TcpProxy} so that the transport-drop
 * tests can cut it off. Identities come from the hub's authenticator (a bearer token per identity),
 * never from payloads. The suite injects replies from nowhere on purpose (late and malformed
 * responses), which a hub with strict replies refuses before they reach the caller ({@code
 * HubRulesTest} checks that), so this hub relays them.
 */
class WebSocketTransportConformanceTest extends TransportConformanceTest {
  private static final Map<String, Identity> TOKENS = new ConcurrentHashMap<>();
  private static WebSocketHub hub;

  private final List<WebSocketSpoke> opened = new CopyOnWriteArrayList<>();
  private TcpProxy callingProxy;

  @BeforeAll
  static void startHub() {
    hub =
        WebSocketHub.builder()
            .permissions(SpokePermissions.allowAll())
            .strictReplies(false)
            .maxMessageBytes(64 * 1024)
            .authenticator(
                handshake ->
                    handshake
                        .bearerToken()
                        .map(token -> Optional.ofNullable(TOKENS.get(token)))
                        .orElse(Optional.of(Identity.anonymous())))
            .start();
  }

  @AfterAll
  static void stopHub() {
    hub.close();
  }

  @Override
  protected Peers createPeers() throws Exception {
    opened.clear();
    WebSocketSpoke serving = spoke(hub.uri(), null);
    callingProxy = TcpProxy.to(hub.port());
    WebSocketSpoke calling = spoke(URI.create(callingProxy.url("ws") + "/ws"), null);
    return Peers.of(serving, calling, callingProxy);
  }

  @Override
  protected PubSub callingAs(Peers peers, Identity identity) {
    String token = UUID.randomUUID().toString();
    TOKENS.put(token, identity);
    return spoke(hub.uri(), token);
  }

  private WebSocketSpoke spoke(URI uri, String token) {
    SpokeOptions.Builder options =
        SpokeOptions.builder(uri).reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200));
    if (token != null) {
      options.bearerToken(token);
    }
    WebSocketSpoke spoke = WebSocketSpoke.connect(options.build());
    opened.add(spoke);
    return spoke;
  }

  @Override
  protected void awaitPropagation() {
    for (WebSocketSpoke spoke : opened) {
      if (spoke.isConnected()) {
        spoke.flush(WAIT);
      }
    }
  }

  @Override
  protected void dropCallingConnection(Peers peers) {
    callingProxy.sever();
  }
}
