package dev.alkdev.operations.transport.redis;

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
 * The PubSub contract on a real {@code redis-server}: every client is its own pair of connections,
 * each through a TCP relay so that one can be cut off alone. Redis counts receivers exactly
 * (PUBLISH's answer, plus one per queue group the publish script reached); a subscriber's full
 * buffer cannot be told to the publisher, so it drops and counts.
 */
class RedisPubSubContractTest extends PubSubContractTest {
  private static RedisServer server;

  private final List<RedisPubSub> opened = new CopyOnWriteArrayList<>();
  private final Map<PubSub, TcpProxy> proxies = new ConcurrentHashMap<>();

  @BeforeAll
  static void startServer() throws Exception {
    server = RedisServer.start();
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
    RedisPubSub client =
        RedisPubSub.connect(
            RedisOptions.builder(proxy.url("redis")).reconnectWait(Duration.ofMillis(50)).build());
    opened.add(client);
    proxies.put(client, proxy);
    return client;
  }

  @Override
  protected void awaitPropagation() {
    for (RedisPubSub client : opened) {
      if (client.isConnected()) {
        client.flush(WAIT);
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
