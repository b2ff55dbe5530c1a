package dev.alkdev.operations.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.testing.CallLoad;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A transport that reconnects subscribes again before it lets anything publish on the new
 * connection. Otherwise a call sent in between finds its operation served but its caller's reply
 * subscription not yet back: the answer is dropped and the call waits for its deadline. And the
 * serving side answers a request its new connection brought while the rest of its subscriptions are
 * being restored, on that connection, instead of having the answer refused. Thousands of other
 * subscriptions make that in-between long enough to hit.
 */
class NatsReconnectOrderTest {
  private static final int RESTARTS = 5;
  private static final int OTHER_SUBSCRIPTIONS = 5_000;
  private static final int IN_FLIGHT = 64;
  private static final Duration DEADLINE = Duration.ofSeconds(1);

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void noCallSentOnANewConnectionLosesItsReplyToASubscriptionNotYetRestored() throws Exception {
    // The serving side comes back first, so requests sent while the caller is restoring its
    // subscriptions are served.
    restartUnderLoad(0, Duration.ofMillis(5), OTHER_SUBSCRIPTIONS, Duration.ofMillis(40));
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aRequestTheNewConnectionBringsBeforeTheRestEndsIsAnsweredOnIt() throws Exception {
    // The calling side comes back first; the serving side's call subscription may be restored
    // before thousands of others, and a request it brings meanwhile is answered, not refused.
    restartUnderLoad(OTHER_SUBSCRIPTIONS, Duration.ofMillis(40), 0, Duration.ofMillis(5));
  }

  private static void restartUnderLoad(
      int servingSubscriptions,
      Duration servingWait,
      int callingSubscriptions,
      Duration callingWait)
      throws Exception {
    try (NatsServer server = NatsServer.start()) {
      NatsOptions servingOptions =
          NatsOptions.builder(server.url()).reconnectWait(servingWait).build();
      NatsOptions callingOptions =
          NatsOptions.builder(server.url()).reconnectWait(callingWait).build();
      try (OperationRegistry registry = OperationRegistry.create();
          NatsPubSub serving = NatsPubSub.connect(servingOptions);
          NatsPubSub calling = NatsPubSub.connect(callingOptions)) {
        registry.register(
            OperationSpec.builder("order", "echo").build(), Handler.blocking((in, ctx) -> in));
        try (CallHandler handler = CallHandler.serve(registry, serving);
            PendingRequestMap calls = PendingRequestMap.create(calling)) {
          for (int i = 0; i < servingSubscriptions; i++) {
            serving.subscribe("other." + i, SubscribeOptions.defaults(), message -> {});
          }
          for (int i = 0; i < callingSubscriptions; i++) {
            calling.subscribe("other." + i, SubscribeOptions.defaults(), message -> {});
          }
          serving.flush(Duration.ofSeconds(5));
          calling.flush(Duration.ofSeconds(5));
          CallLoad load = CallLoad.of(calls, "order.echo", IN_FLIGHT, DEADLINE);
          Thread loader = new Thread(load, "order-load");
          loader.start();
          try {
            for (int i = 0; i < RESTARTS; i++) {
              load.awaitSuccesses(200);
              server.kill();
              server.restart();
              NatsPubSubTest.eventually(
                  "both sides reconnected", () -> serving.isConnected() && calling.isConnected());
            }
            load.awaitSuccesses(200);
          } finally {
            load.stop();
            loader.join(10_000);
          }
          assertThat(load.allEnded(Duration.ofSeconds(10))).as("every call ended").isTrue();
          assertThat(serving.stats().reconnects()).isEqualTo(RESTARTS);
          assertThat(calling.stats().reconnects()).isEqualTo(RESTARTS);
          assertThat(load.problems).isEmpty();
          assertThat(load.byCode.keySet())
              .as("how calls failed over the restarts: %s", load.byCode)
              .doesNotContain(ErrorCode.DEADLINE_EXCEEDED)
              .isSubsetOf(ErrorCode.UNAVAILABLE, ErrorCode.NO_RESPONDERS);
          System.out.printf(
              "NatsReconnectOrderTest: %d answered, failed %s over %d restarts%n",
              load.successes.get(), load.byCode, RESTARTS);
        }
      }
    }
  }
}
