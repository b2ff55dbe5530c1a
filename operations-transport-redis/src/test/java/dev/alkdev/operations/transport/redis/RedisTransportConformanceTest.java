package dev.alkdev.operations.transport.redis;

import dev.alkdev.operations.testing.TcpProxy;
import dev.alkdev.operations.testing.TransportConformanceTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The call-protocol conformance suite on a real {@code redis-server}: the serving side and the
 * calling side are separate transports (each two connections), the calling side through a TCP relay
 * so that the suite can cut it off.
 */
class RedisTransportConformanceTest extends TransportConformanceTest {
  private static RedisServer server;

  private RedisPubSub serving;
  private RedisPubSub calling;
  private TcpProxy callingProxy;

  @BeforeAll
  static void startServer() throws Exception {
    server = RedisServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @Override
  protected Peers createPeers() throws Exception {
    serving = RedisPubSub.connect(options(server.url()));
    callingProxy = TcpProxy.to(server.port());
    calling = RedisPubSub.connect(options(callingProxy.url("redis")));
    return Peers.of(serving, calling, callingProxy);
  }

  @Override
  protected void awaitPropagation() {
    for (RedisPubSub side : new RedisPubSub[] {serving, calling}) {
      if (side.isConnected()) {
        side.flush(WAIT);
      }
    }
  }

  @Override
  protected void dropCallingConnection(Peers peers) {
    callingProxy.sever();
  }

  private static RedisOptions options(String url) {
    // Small messages keep the oversized-message tests cheap; the rules are the same at 1 MiB.
    return RedisOptions.builder(url)
        .maxMessageBytes(64 * 1024)
        .reconnectWait(Duration.ofMillis(50))
        .build();
  }
}
