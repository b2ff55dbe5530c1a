package dev.alkdev.operations.transport.websocket;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * D74: where handlers run. A subscription whose handler promised never to block starts on the
 * thread that read its message (a spoke's WebSocket reader, or on the hub the reader of the sending
 * spoke's connection), saving a hand-off; any other handler never runs there, so one that blocks
 * cannot stall a connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebSocketThreadsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final int MESSAGES = 20;

  private static WebSocketSpoke spoke(WebSocketHub hub) {
    return WebSocketSpoke.connect(
        SpokeOptions.builder(hub.uri()).requestTimeout(Duration.ofSeconds(5)).build());
  }

  @Test
  void aNonBlockingHandlerRunsOnTheReaderAndAnyOtherNeverDoes() throws Exception {
    try (WebSocketHub hub =
            WebSocketHub.builder().permissions(SpokePermissions.allowAll()).start();
        WebSocketSpoke subscriber = spoke(hub);
        WebSocketSpoke publisher = spoke(hub)) {
      BlockingQueue<String> spokeNonBlocking = new LinkedBlockingQueue<>();
      BlockingQueue<String> spokeNormal = new LinkedBlockingQueue<>();
      BlockingQueue<String> hubNonBlocking = new LinkedBlockingQueue<>();
      BlockingQueue<String> hubNormal = new LinkedBlockingQueue<>();
      subscriber.subscribe("threads.spoke", nonBlocking(), m -> record(spokeNonBlocking));
      subscriber.subscribe("threads.spoke", SubscribeOptions.defaults(), m -> record(spokeNormal));
      PubSub atHub = hub.pubsub();
      atHub.subscribe("threads.hub", nonBlocking(), m -> record(hubNonBlocking));
      atHub.subscribe("threads.hub", SubscribeOptions.defaults(), m -> record(hubNormal));
      subscriber.flush(WAIT);

      for (int i = 0; i < MESSAGES; i++) {
        byte[] payload = ("m" + i).getBytes(UTF_8);
        assertThat(publisher.publish("threads.spoke", payload).get(5, TimeUnit.SECONDS))
            .isEqualTo(2);
        assertThat(publisher.publish("threads.hub", payload).get(5, TimeUnit.SECONDS)).isEqualTo(2);
      }
      for (int i = 0; i < MESSAGES; i++) {
        assertThat(take(spokeNonBlocking)).as("spoke, non-blocking").startsWith("ops-ws-spoke-");
        assertThat(take(spokeNormal)).as("spoke, any other").doesNotStartWith("ops-ws-spoke");
        assertThat(take(hubNonBlocking)).as("hub, non-blocking").startsWith("ops-ws-hub-");
        assertThat(take(hubNormal)).as("hub, any other").doesNotStartWith("ops-ws-hub");
      }
    }
  }

  /**
   * The hub confirms a subscription on the connection the reader reads: a non-blocking handler that
   * subscribes must not wait for it there (it would wait out the request timeout).
   */
  @Test
  void aNonBlockingHandlerThatSubscribesDoesNotWaitOnItsOwnReader() throws Exception {
    try (WebSocketHub hub =
            WebSocketHub.builder().permissions(SpokePermissions.allowAll()).start();
        WebSocketSpoke subscriber = spoke(hub);
        WebSocketSpoke publisher = spoke(hub)) {
      BlockingQueue<Long> subscribeMillis = new LinkedBlockingQueue<>();
      BlockingQueue<String> later = new LinkedBlockingQueue<>();
      subscriber.subscribe(
          "threads.first",
          nonBlocking(),
          m -> {
            long start = System.nanoTime();
            subscriber.subscribe(
                "threads.later", SubscribeOptions.defaults(), n -> later.add("heard"));
            subscribeMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
          });
      subscriber.flush(WAIT);

      publisher.publish("threads.first", "go".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
      Long took = subscribeMillis.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(took).as("the subscribe returned").isNotNull();
      assertThat(took).as("ms the handler's subscribe took").isLessThan(1000);
      subscriber.flush(WAIT); // the hub has read the SUB by now
      assertThat(publisher.publish("threads.later", "x".getBytes(UTF_8)).get(5, TimeUnit.SECONDS))
          .isEqualTo(1);
      assertThat(later.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("heard");
    }
  }

  private static SubscribeOptions nonBlocking() {
    return SubscribeOptions.defaults().withNonBlockingHandler();
  }

  private static void record(BlockingQueue<String> queue) {
    queue.add(Thread.currentThread().getName());
  }

  private static String take(BlockingQueue<String> queue) throws InterruptedException {
    String name = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    if (name == null) {
      throw new AssertionError("no message within " + WAIT);
    }
    return name;
  }
}
