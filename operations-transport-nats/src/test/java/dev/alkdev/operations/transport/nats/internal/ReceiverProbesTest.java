package dev.alkdev.operations.transport.nats.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.transport.nats.NatsServer;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ReceiverProbesTest {
  private static final CallError DROPPED = CallError.of(ErrorCode.UNAVAILABLE, "dropped (test)");

  @Test
  void publishesSettleAsNobodyOrAtLeastOne() throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try (NatsServer server = NatsServer.start();
        Connection connection = Nats.connect(server.url())) {
      ReceiverProbes probes = new ReceiverProbes(connection, timer);
      assertThat(probes.publish("nobody.here", new byte[] {1}).get(5, TimeUnit.SECONDS)).isZero();
      connection.subscribe("somebody.here");
      connection.flush(java.time.Duration.ofSeconds(5));
      assertThat(probes.publish("somebody.here", new byte[] {1}).get(5, TimeUnit.SECONDS))
          .isEqualTo(1);
      assertThat(probes.unsettled()).isZero();
    } finally {
      timer.shutdownNow();
    }
  }

  @Test
  void afterFailAllEveryPublishFailsAtOnceInsteadOfWaitingForAMarker() throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try (NatsServer server = NatsServer.start();
        Connection connection = Nats.connect(server.url())) {
      ReceiverProbes probes = new ReceiverProbes(connection, timer);
      probes.failAll(DROPPED);

      CompletableFuture<Integer> late = probes.publish("any.subject", new byte[] {1});

      assertThat(late).isCompletedExceptionally();
      assertThat(probes.unsettled()).isZero();
    } finally {
      timer.shutdownNow();
    }
  }

  /**
   * failAll racing publishes from other threads (the connection dropping under load): every publish
   * settles (0, 1 or the failure), none is left waiting for a marker that will never come.
   */
  @Test
  void publishesRacingFailAllAllSettle() throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try (NatsServer server = NatsServer.start()) {
      for (int round = 0; round < 20; round++) {
        try (Connection connection = Nats.connect(server.url())) {
          ReceiverProbes probes = new ReceiverProbes(connection, timer);
          List<CompletableFuture<Integer>> all =
              java.util.Collections.synchronizedList(new ArrayList<>());
          List<Thread> publishers = new ArrayList<>();
          for (int t = 0; t < 4; t++) {
            Thread publisher =
                new Thread(
                    () -> {
                      for (int i = 0; i < 500; i++) {
                        try {
                          all.add(probes.publish("nobody.here", new byte[] {1}));
                        } catch (IllegalStateException closing) {
                          return;
                        }
                      }
                    });
            publishers.add(publisher);
            publisher.start();
          }
          Thread.sleep(1);
          probes.failAll(DROPPED);
          for (Thread publisher : publishers) {
            publisher.join(10_000);
          }
          for (CompletableFuture<Integer> future : all) {
            try {
              future.get(5, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
              assertThat(e.getCause()).isSameAs(DROPPED);
            }
          }
          assertThat(probes.unsettled()).isZero();
        }
      }
    } finally {
      timer.shutdownNow();
    }
  }
}
