package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.testing.TcpProxy;
import dev.alkdev.operations.testing.TransportConformanceTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The call protocol on NATS: the serving side and the calling side are separate connections to one
 * {@code nats-server}; the calling side goes through a {@link TcpProxy} so that the transport-drop
 * tests can cut it off as a network failure would. Identity tests are skipped: NATS does not stamp
 * identities and payload identities are not trusted.
 */
class NatsTransportConformanceTest extends TransportConformanceTest {
  private static NatsServer server;

  private NatsPubSub serving;
  private NatsPubSub calling;
  private TcpProxy callingProxy;

  @BeforeAll
  static void startServer() throws Exception {
    server = NatsServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @Override
  protected Peers createPeers() throws Exception {
    serving = NatsPubSub.connect(options(server.url()));
    callingProxy = TcpProxy.to(server.port());
    calling = NatsPubSub.connect(options(callingProxy.url("nats")));
    return Peers.of(serving, calling, callingProxy);
  }

  @Override
  protected void awaitPropagation() {
    for (NatsPubSub side : new NatsPubSub[] {serving, calling}) {
      if (side.isConnected()) {
        side.flush(WAIT);
      }
    }
  }

  @Override
  protected void dropCallingConnection(Peers peers) {
    callingProxy.sever();
  }

  private static NatsOptions options(String url) {
    // Small messages keep the oversized-message tests cheap; the rules are the same at 1 MiB.
    return NatsOptions.builder(url)
        .maxMessageBytes(64 * 1024)
        .reconnectWait(Duration.ofMillis(50))
        .build();
  }
}
