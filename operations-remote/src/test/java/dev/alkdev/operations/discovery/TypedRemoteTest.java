package dev.alkdev.operations.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.annotation.AnnotatedOperations;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.envelope.ResponseSource;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.InProcessPubSub;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One contract served by a node and called through typed clients over a remote catalogue and over a
 * bare call protocol client: every call answered once, streams held to the subscriber's demand.
 */
class TypedRemoteTest {
  public record Add(long a, long b) {}

  public record Sum(long value) {}

  public record Count(int to) {}

  @Namespace("calc")
  public interface Calc {
    @Operation(name = "add", description = "Adds two numbers")
    Sum add(Add input, OperationContext context);

    @Operation(name = "count", type = OperationType.SUBSCRIPTION)
    Flow.Publisher<Long> count(Count input);

    @Operation(name = "boom")
    Sum boom(Add input);
  }

  /** Serves Calc, counting every run and what the stream was asked for. */
  static final class CalcImpl implements Calc {
    final ConcurrentHashMap<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
    final AtomicLong emitted = new AtomicLong();

    @Override
    public Sum add(Add input, OperationContext context) {
      runs.computeIfAbsent(input.a(), a -> new AtomicInteger()).incrementAndGet();
      return new Sum(input.a() + input.b());
    }

    @Override
    public Flow.Publisher<Long> count(Count input) {
      return subscriber ->
          subscriber.onSubscribe(
              new Flow.Subscription() {
                private long next;
                private boolean done;

                @Override
                public synchronized void request(long n) {
                  for (long i = 0; i < n && !done; i++) {
                    if (next == input.to()) {
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
    public Sum boom(Add input) {
      throw new IllegalStateException("boom");
    }
  }

  private final List<AutoCloseable> open = new ArrayList<>();
  private final InProcessPubSub bus = InProcessPubSub.create();
  private final CalcImpl impl = new CalcImpl();
  private RemoteCatalog catalog;

  @BeforeEach
  void serve() throws Exception {
    OperationRegistry registry = open(OperationRegistry.create());
    registry.implement(Calc.class, impl);
    open(
        ServingNode.builder(registry, open(new CuttablePubSub(bus)))
            .nodeId("calc-1")
            .heartbeatInterval(Duration.ofMillis(200))
            .start());
    catalog = open(RemoteCatalog.create(open(new CuttablePubSub(bus))));
    assertThat(catalog.awaitSettled(Duration.ofMillis(300), Duration.ofSeconds(10))).isTrue();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    bus.close();
  }

  private <T extends AutoCloseable> T open(T closeable) {
    open.add(closeable);
    return closeable;
  }

  @Test
  void everyCallThroughTheCatalogIsAnsweredOnceByTheNode() throws Exception {
    Calc calc = TypedClient.create(Calc.class, catalog);
    List<CompletableFuture<Sum>> calls = new ArrayList<>();
    for (long i = 0; i < 100; i++) {
      long a = i;
      calls.add(
          CompletableFuture.supplyAsync(() -> calc.add(new Add(a, 1), OperationContext.create())));
    }
    for (int i = 0; i < calls.size(); i++) {
      assertThat(calls.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(new Sum(i + 1));
    }
    assertThat(impl.runs).hasSize(100);
    assertThat(impl.runs.values()).allSatisfy(runs -> assertThat(runs.get()).isEqualTo(1));
  }

  @Test
  void theNodesErrorArrivesWithItsCode() {
    Calc calc = TypedClient.create(Calc.class, catalog);
    assertThatThrownBy(() -> calc.boom(new Add(1, 2)))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.EXECUTION_ERROR));
  }

  @Test
  void aRemoteStreamIsTypedAndNeverRunsAheadOfDemand() throws Exception {
    Calc calc = TypedClient.create(Calc.class, catalog);
    List<Long> items = new CopyOnWriteArrayList<>();
    AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    AtomicReference<Throwable> error = new AtomicReference<>();
    calc.count(new Count(1_000))
        .subscribe(
            new Flow.Subscriber<>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                subscription.set(s);
                s.request(3);
              }

              @Override
              public void onNext(Long item) {
                items.add(item);
              }

              @Override
              public void onError(Throwable throwable) {
                error.set(throwable);
                done.countDown();
              }

              @Override
              public void onComplete() {
                done.countDown();
              }
            });
    DiscoveryTest.await("three items", () -> items.size() == 3);
    Thread.sleep(200);
    assertThat(items).containsExactly(0L, 1L, 2L);
    assertThat(impl.emitted.get()).isEqualTo(3); // the node produced no more than was asked
    subscription.get().request(Long.MAX_VALUE);
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(error.get()).isNull();
    assertThat(items).hasSize(1_000);
    assertThat(items.get(999)).isEqualTo(999L);
  }

  @Test
  void theCatalogsSpecsCheckTheInterface() {
    assertThatThrownBy(() -> TypedClient.create(Wrong.class, catalog))
        .hasMessageContaining("calc.add (Wrong.add()): input: the spec requires property 'b'")
        .hasMessageContaining("calc.missing (Wrong.missing()): no such operation");
  }

  @Test
  void aBareProtocolClientIsCheckedAgainstTheContractsOwnSpecs() throws Exception {
    PendingRequestMap pending = open(PendingRequestMap.create(open(new CuttablePubSub(bus))));
    Calc calc =
        TypedClient.builder(Calc.class, pending)
            .specs(AnnotatedOperations.specs(Calc.class))
            .build();
    assertThat(calc.add(new Add(40, 2), OperationContext.create())).isEqualTo(new Sum(42));
    Envelopes envelopes = TypedClient.create(Envelopes.class, catalog);
    ResponseEnvelope<Sum> envelope = envelopes.add(new Add(1, 1)).get(10, TimeUnit.SECONDS);
    assertThat(envelope.data()).isEqualTo(new Sum(2));
    assertThat(envelope.source()).isEqualTo(ResponseSource.LOCAL);
  }

  @Namespace("calc")
  public interface Wrong {
    Sum add(Count input);

    Sum missing();
  }

  @Namespace("calc")
  public interface Envelopes {
    CompletableFuture<ResponseEnvelope<Sum>> add(Add input);
  }
}
