package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.serving.OperationServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * Issue 14's soak: for several seconds, callers open streams (blocking emitters and publishers) and
 * vanish without a word, some still subscribed (a hung process), some not (a dead one), while live
 * callers make normal calls and keep a stream. At the end nothing runs on the serving side, every
 * normal call was answered exactly once with its own result, and a new call succeeds.
 */
class VanishingCallersSoakTest {
  static final Duration LEASE = Duration.ofMillis(300);
  static final Duration ALIVE = Duration.ofMillis(100);
  static final long LOAD_MILLIS = 8_000;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void vanishedCallersLeaveNothingRunningAndLiveCallersLoseNothing() throws Exception {
    ExecutorService handlerThreads = Executors.newFixedThreadPool(64);
    try (InProcessPubSub pubsub = InProcessPubSub.create();
        OperationRegistry registry = OperationRegistry.builder().executor(handlerThreads).build();
        OperationServer server = OperationServer.create(registry);
        CallHandler handler =
            CallHandler.builder(server, pubsub).callerLeaseTimeout(LEASE).build()) {
      register(registry);
      AtomicBoolean loading = new AtomicBoolean(true);

      // Live callers: unary calls, each with its own number, counted on arrival.
      int liveCallers = 3;
      AtomicInteger sent = new AtomicInteger();
      ConcurrentHashMap<Integer, Integer> answered = new ConcurrentHashMap<>();
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      List<PendingRequestMap> liveMaps = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < liveCallers; c++) {
        PendingRequestMap map = PendingRequestMap.builder(pubsub).aliveInterval(ALIVE).build();
        liveMaps.add(map);
        Thread thread =
            new Thread(
                () -> {
                  while (loading.get()) {
                    int n = sent.incrementAndGet();
                    try {
                      JsonNode data = map.call("demo.echo", n).get(10, TimeUnit.SECONDS).data();
                      answered.merge(data.asInt(), 1, Integer::sum);
                    } catch (Exception e) {
                      failures.add(e);
                    }
                  }
                },
                "live-caller-" + c);
        threads.add(thread);
        thread.start();
      }
      // A live stream, consumed one item at a time for the whole soak.
      LiveStream liveStream = new LiveStream();
      liveMaps.get(0).subscribe("demo.feed", null).subscribe(liveStream);

      // Vanishing callers, one every 10 ms or so.
      Random random = new Random(14);
      List<PubSub.Subscription> hungInboxes = new ArrayList<>();
      AtomicLong itemsToTheVanished = new AtomicLong();
      int vanished = 0;
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOAD_MILLIS);
      while (System.nanoTime() - end < 0) {
        String operation = random.nextBoolean() ? "demo.ticks" : "demo.feed";
        switch (vanished % 3) {
          case 0 -> {
            // A hung process: its inbox stays subscribed, it never speaks again.
            String inbox = ProtocolTopics.INBOX_PREFIX + OperationContext.newRequestId();
            hungInboxes.add(
                pubsub.subscribe(
                    inbox, SubscribeOptions.defaults(), m -> itemsToTheVanished.incrementAndGet()));
            rawRequest(pubsub, operation, inbox, 1 + random.nextInt(3));
          }
          case 1 -> {
            // A request whose sender died at once: nobody listens on its inbox.
            String inbox = ProtocolTopics.INBOX_PREFIX + OperationContext.newRequestId();
            rawRequest(pubsub, operation, inbox, 1 + random.nextInt(3));
          }
          default -> {
            // A PendingRequestMap whose process dies mid-stream: its subscriptions vanish and it
            // sends nothing more (no call.aborted, no call.alive).
            SeverablePubSub dying = new SeverablePubSub(pubsub);
            PendingRequestMap map = PendingRequestMap.builder(dying).aliveInterval(ALIVE).build();
            CompletableFuture<Void> firstItem = new CompletableFuture<>();
            map.subscribe(operation, null).subscribe(new FirstItemThenSilence(firstItem));
            firstItem.get(10, TimeUnit.SECONDS);
            dying.sever();
            map.close(); // its goodbye goes nowhere
          }
        }
        vanished++;
        Thread.sleep(10);
      }
      loading.set(false);
      for (Thread thread : threads) {
        thread.join(TimeUnit.SECONDS.toMillis(20));
      }
      assertThat(liveStream.error).as("the live stream was never cut").isNull();
      assertThat(liveStream.items.get()).as("the live stream kept flowing").isGreaterThan(100);
      liveStream.subscription.cancel();

      // Nothing is left running: every vanished caller's call ended by its lease.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      // The handler forgets a call just after the server's count drops: wait for all three.
      while ((server.stats().running() > 0
              || handler.stats().pending() > 0
              || handler.trackedCallers() > 0)
          && System.nanoTime() - deadline < 0) {
        Thread.sleep(20);
      }
      assertThat(server.stats().running()).isZero();
      assertThat(handler.stats().pending()).isZero();
      assertThat(handler.trackedCallers()).isZero();

      // Every normal call was answered once, with its own number; none was lost.
      assertThat(failures).isEmpty();
      int calls = sent.get();
      assertThat(answered).hasSize(calls);
      assertThat(answered.values()).allMatch(count -> count == 1);
      assertThat(answered.keySet()).allMatch(n -> n >= 1 && n <= calls);

      // And the server still serves.
      assertThat(liveMaps.get(1).call("demo.echo", -1).get(5, TimeUnit.SECONDS).data().asInt())
          .isEqualTo(-1);
      System.out.printf(
          "soak: %d vanished callers, %d normal calls, %d live stream items, %d items to hung"
              + " inboxes%n",
          vanished, calls, liveStream.items.get(), itemsToTheVanished.get());
      assertThat(vanished).isGreaterThan(50);
      liveMaps.forEach(PendingRequestMap::close);
      hungInboxes.forEach(PubSub.Subscription::close);
    } finally {
      handlerThreads.shutdownNow();
    }
  }

  static void register(OperationRegistry registry) {
    registry.register(
        OperationSpec.builder("demo", "echo").build(),
        Handler.async((in, ctx) -> CompletableFuture.completedFuture(in)));
    // A blocking emitter: holds a thread while it waits for demand.
    registry.register(
        OperationSpec.builder("demo", "ticks").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, emitter) -> {
              for (int i = 0; ; i++) {
                emitter.emit(i);
              }
            }));
    // A publisher: emits as demand comes, on whichever thread brings it.
    registry.register(
        OperationSpec.builder("demo", "feed").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher((in, ctx) -> new Counting()));
  }

  static void rawRequest(PubSub pubsub, String operationId, String replyTo, int demand) {
    String json =
        ("{\"v\": 1, \"type\": \"call.requested\", \"requestId\": \"%s\", \"replyTo\": \"%s\","
                + " \"operationId\": \"%s\", \"demand\": %d, \"input\": null}")
            .formatted(OperationContext.newRequestId(), replyTo, operationId, demand);
    pubsub.publish(ProtocolTopics.request(operationId), json.getBytes(StandardCharsets.UTF_8));
  }

  /** Counts 0, 1, 2, ... exactly as fast as it is asked, and stops when cancelled. */
  static final class Counting implements Flow.Publisher<Integer> {
    @Override
    public void subscribe(Flow.Subscriber<? super Integer> subscriber) {
      subscriber.onSubscribe(
          new Flow.Subscription() {
            final AtomicLong demand = new AtomicLong();
            final AtomicInteger draining = new AtomicInteger();
            volatile boolean cancelled;
            int next;

            @Override
            public void request(long n) {
              demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
              if (draining.getAndIncrement() != 0) {
                return; // the thread draining now will see the new demand
              }
              do {
                while (!cancelled && demand.get() > 0) {
                  demand.decrementAndGet();
                  subscriber.onNext(next++);
                }
              } while (draining.decrementAndGet() != 0);
            }

            @Override
            public void cancel() {
              cancelled = true;
            }
          });
    }
  }

  /** Takes one item at a time for as long as it is left alone. */
  static final class LiveStream implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
    final AtomicLong items = new AtomicLong();
    volatile Flow.Subscription subscription;
    volatile Throwable error;

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(1);
    }

    @Override
    public void onNext(ResponseEnvelope<JsonNode> item) {
      items.incrementAndGet();
      try {
        Thread.sleep(1); // a consumer that does some work
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      subscription.request(1);
    }

    @Override
    public void onError(Throwable t) {
      error = t;
    }

    @Override
    public void onComplete() {
      error = new AssertionError("the endless stream completed");
    }
  }

  /** Asks for two items, and reports the first. */
  static final class FirstItemThenSilence implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
    private final CompletableFuture<Void> firstItem;

    FirstItemThenSilence(CompletableFuture<Void> firstItem) {
      this.firstItem = firstItem;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      s.request(2);
    }

    @Override
    public void onNext(ResponseEnvelope<JsonNode> item) {
      firstItem.complete(null);
    }

    @Override
    public void onError(Throwable t) {
      firstItem.completeExceptionally(t);
    }

    @Override
    public void onComplete() {}
  }

  /**
   * A transport whose process can die: after {@link #sever} its subscriptions are gone and what it
   * publishes goes nowhere, as if the process had been killed.
   */
  static final class SeverablePubSub implements PubSub {
    private final PubSub delegate;
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private volatile boolean severed;

    SeverablePubSub(PubSub delegate) {
      this.delegate = delegate;
    }

    void sever() {
      severed = true;
      subscriptions.forEach(Subscription::close);
    }

    @Override
    public CompletableFuture<Integer> publish(String topic, byte[] payload) {
      return severed ? CompletableFuture.completedFuture(0) : delegate.publish(topic, payload);
    }

    @Override
    public Subscription subscribe(
        String topic, SubscribeOptions options, Consumer<Message> handler) {
      Subscription subscription = delegate.subscribe(topic, options, handler);
      subscriptions.add(subscription);
      return subscription;
    }

    @Override
    public int maxMessageBytes() {
      return delegate.maxMessageBytes();
    }

    @Override
    public boolean trustsPayloadIdentity() {
      return delegate.trustsPayloadIdentity();
    }

    @Override
    public Registration onDisconnect(Runnable action) {
      return () -> {}; // a dead process hears nothing
    }

    @Override
    public void close() {
      sever();
    }
  }
}
