package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.testing.PubSubContractTest;
import dev.alkdev.operations.testing.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The pub/sub contract through a hub: every client is a spoke of its own connection, through a
 * {@link TcpProxy} so that one can be cut off. The hub counts receivers exactly (each publish is
 * confirmed with its count); a full subscription buffer drops and counts, since the publisher is on
 * another connection.
 */
class WebSocketPubSubContractTest extends PubSubContractTest {
  private static WebSocketHub hub;

  private final Map<PubSub, TcpProxy> proxies = new ConcurrentHashMap<>();

  @BeforeAll
  static void startHub() {
    hub = WebSocketHub.builder().permissions(SpokePermissions.allowAll()).start();
  }

  @AfterAll
  static void stopHub() {
    hub.close();
  }

  @AfterEach
  void closeProxies() {
    proxies.values().forEach(TcpProxy::close);
  }

  @Override
  protected PubSub connect() throws Exception {
    TcpProxy proxy = TcpProxy.to(hub.port());
    WebSocketSpoke spoke =
        WebSocketSpoke.connect(
            SpokeOptions.builder(URI.create(proxy.url("ws") + "/ws"))
                .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
                .connectTimeout(Duration.ofSeconds(2))
                .build());
    proxies.put(spoke, proxy);
    return spoke;
  }

  @Override
  protected void awaitPropagation() {
    for (PubSub client : proxies.keySet()) {
      WebSocketSpoke spoke = (WebSocketSpoke) client;
      if (spoke.isConnected()) {
        spoke.flush(WAIT);
      }
    }
  }

  @Override
  protected boolean tellsPublisherOfRejection() {
    return false;
  }

  @Override
  protected void severConnection(PubSub client) {
    proxies.get(client).sever();
  }

  @Override
  protected void interruptConnection(PubSub client) {
    proxies.get(client).dropConnections();
  }
}
