package dev.alkdev.operations.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.typed.TypedClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A typed client over NATS (docs/typed-clients.md): two nodes serve one contract on a real
 * nats-server; calls through the interface are each run once, failures keep their codes, and a
 * stream is held to the subscriber's demand across the broker.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NatsTypedClientTest {
  private static NatsServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = NatsServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  public record Charge(String account, long cents) {}

  public record Receipt(String account, long cents, String node) {}

  public record Watch(int count) {}

  // snippet: contract
  @Namespace("billing")
  public interface Billing {
    @Operation(name = "charge", description = "Charges an account")
    Receipt charge(Charge charge);

    @Operation(name = "ticks")
    Flow.Publisher<Long> ticks(Watch watch);

    @Operation(name = "refuse")
    CompletableFuture<Receipt> refuse(Charge charge);
  }

  // end-snippet

  /** One node's implementation; counts what it ran and what it emitted. */
  static final class BillingNode implements Billing {
    final String name;
    final ConcurrentHashMap<String, AtomicInteger> runs;
    final AtomicLong emitted = new AtomicLong();

    BillingNode(String name, ConcurrentHashMap<String, AtomicInteger> runs) {
      this.name = name;
      this.runs = runs;
    }

    @Override
    public Receipt charge(Charge charge) {
      runs.computeIfAbsent(charge.account(), a -> new AtomicInteger()).incrementAndGet();
      return new Receipt(charge.account(), charge.cents(), name);
    }

    @Override
    public Flow.Publisher<Long> ticks(Watch watch) {
      return subscriber ->
          subscriber.onSubscribe(
              new Flow.Subscription() {
                private long next;
                private boolean done;

                @Override
                public synchronized void request(long n) {
                  for (long i = 0; i < n && !done; i++) {
                    if (next == watch.count()) {
                      done = true;
                      subscriber.onComplete();
                      return;
                    }
                    emitted.incrementAndGet();
                    subscriber.onNext(next++);
                  }
                }

                @Override
                public synchronized void cancel() {
                  done = true;
                }
              });
    }

    @Override
    public CompletableFuture<Receipt> refuse(Charge charge) {
      return CompletableFuture.failedFuture(
          CallError.of(ErrorCode.ACCESS_DENIED, "not this account: " + charge.account()));
    }
  }

  @Test
  void callsThroughTheInterfaceRunOnceOnWhicheverNodeServes() throws Exception {
    ConcurrentHashMap<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    BillingNode one = new BillingNode("one", runs);
    BillingNode two = new BillingNode("two", runs);
    try (NatsPubSub servingOne = NatsPubSub.connect(NatsOptions.builder(server.url()).build());
        NatsPubSub servingTwo = NatsPubSub.connect(NatsOptions.builder(server.url()).build());
        OperationRegistry registryOne = OperationRegistry.create();
        OperationRegistry registryTwo = OperationRegistry.create()) {
      registryOne.implement(Billing.class, one);
      registryTwo.implement(Billing.class, two);
      try (ServingNode nodeOne = ServingNode.start(registryOne, servingOne);
          ServingNode nodeTwo = ServingNode.start(registryTwo, servingTwo);
          NatsPubSub calling = NatsPubSub.connect(NatsOptions.builder(server.url()).build());
          RemoteCatalog catalog = RemoteCatalog.create(calling)) {
        assertThat(catalog.awaitSettled(Duration.ofMillis(500), Duration.ofSeconds(10))).isTrue();
        // snippet: nats
        Billing billing =
            TypedClient.builder(Billing.class, catalog) // the nodes on NATS that serve billing.*
                .timeout(Duration.ofSeconds(5))
                .build();
        Receipt receipt = billing.charge(new Charge("acct-1", 1200));
        // end-snippet
        assertThat(receipt.cents()).isEqualTo(1200);

        List<CompletableFuture<Receipt>> calls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          String account = "acct-" + (i + 2);
          calls.add(CompletableFuture.supplyAsync(() -> billing.charge(new Charge(account, 1))));
        }
        List<String> nodes = new ArrayList<>();
        for (CompletableFuture<Receipt> call : calls) {
          nodes.add(call.get(20, TimeUnit.SECONDS).node());
        }
        assertThat(runs).hasSize(201);
        assertThat(runs.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        assertThat(nodes).contains("one", "two"); // both nodes served

        CompletableFuture<Receipt> refused = billing.refuse(new Charge("acct-x", 1));
        assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
            .cause()
            .isInstanceOfSatisfying(
                CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));

        List<Long> items = new CopyOnWriteArrayList<>();
        AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        billing
            .ticks(new Watch(500))
            .subscribe(
                new Flow.Subscriber<>() {
                  @Override
                  public void onSubscribe(Flow.Subscription s) {
                    subscription.set(s);
                    s.request(5);
                  }

                  @Override
                  public void onNext(Long item) {
                    items.add(item);
                  }

                  @Override
                  public void onError(Throwable throwable) {
                    done.countDown();
                  }

                  @Override
                  public void onComplete() {
                    done.countDown();
                  }
                });
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (items.size() < 5 && System.nanoTime() < until) {
          Thread.sleep(5);
        }
        Thread.sleep(200);
        assertThat(items).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(one.emitted.get() + two.emitted.get()).isEqualTo(5); // no more than asked
        subscription.get().request(Long.MAX_VALUE);
        assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(items).hasSize(500);
      }
    }
  }
}
