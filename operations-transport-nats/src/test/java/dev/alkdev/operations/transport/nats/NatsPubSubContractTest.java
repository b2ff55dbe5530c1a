package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.testing.PubSubContractTest;
import dev.alkdev.operations.testing.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The pub/sub contract on NATS: one {@code nats-server} for the class, each client a connection of
 * its own through a {@link TcpProxy} so that one can be cut off. NATS does not count receivers (a
 * publish reports 0 or "at least 1"), and a full subscription buffer drops and counts, since the
 * publisher is on another connection.
 */
class NatsPubSubContractTest extends PubSubContractTest {
  private static NatsServer server;

  private final List<NatsPubSub> opened = new CopyOnWriteArrayList<>();
  private final Map<PubSub, TcpProxy> proxies = new ConcurrentHashMap<>();

  @BeforeAll
  static void startServer() throws Exception {
    server = NatsServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @AfterEach
  void closeProxies() {
    proxies.values().forEach(TcpProxy::close);
  }

  @Override
  protected PubSub connect() throws Exception {
    TcpProxy proxy = TcpProxy.to(server.port());
    NatsPubSub client =
        NatsPubSub.connect(
            NatsOptions.builder(proxy.url("nats")).reconnectWait(Duration.ofMillis(50)).build());
    opened.add(client);
    proxies.put(client, proxy);
    return client;
  }

  @Override
  protected void awaitPropagation() {
    for (NatsPubSub client : opened) {
      if (client.isConnected()) {
        client.flush(WAIT);
      }
    }
  }

  @Override
  protected boolean countsReceivers() {
    return false;
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
