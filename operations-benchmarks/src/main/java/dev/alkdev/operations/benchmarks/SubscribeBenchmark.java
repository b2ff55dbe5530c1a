package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Issue 3's benchmark: {@code subscribe()} of a million items against plain publishers of the same
 * items, read by the same subscriber. Target: at least 0.7× the plain publisher's throughput.
 * Scores are items per second (higher is better).
 *
 * <p>Two plain publishers: a synchronous range publisher (the cheapest possible source, a few
 * nanoseconds an item, so any per-item work shows in full) and the JDK's {@link
 * SubmissionPublisher} (a producer thread and a buffer, as real streams have).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SubscribeBenchmark {
  static final int ITEMS = 1_000_000;

  private OperationRegistry registry;
  private ExecutorService producers;

  @Setup
  public void setUp() {
    producers = Executors.newCachedThreadPool();
    registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("bench", "range").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher((in, ctx) -> new RangePublisher(ITEMS)));
    registry.register(
        OperationSpec.builder("bench", "submission").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher((in, ctx) -> submissionPublisher(producers)));
    registry.register(
        OperationSpec.builder("bench", "emitter").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, emitter) -> {
              for (int i = 0; i < ITEMS; i++) {
                emitter.emit(i);
              }
            }));
  }

  @TearDown
  public void tearDown() {
    registry.close();
    producers.shutdownNow();
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long baselineRange(Blackhole bh) throws InterruptedException {
    return drain(new RangePublisher(ITEMS), bh);
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long subscribeRange(Blackhole bh) throws InterruptedException {
    return drain(registry.subscribe("bench.range", null), bh);
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long baselineSubmissionPublisher(Blackhole bh) throws InterruptedException {
    return drain(submissionPublisher(producers), bh);
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long subscribeSubmissionPublisher(Blackhole bh) throws InterruptedException {
    return drain(registry.subscribe("bench.submission", null), bh);
  }

  /** A blocking emitter handler: one lock hand-off per item between producer and consumer. */
  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long subscribeEmitter(Blackhole bh) throws InterruptedException {
    return drain(registry.subscribe("bench.emitter", null), bh);
  }

  /** A SubmissionPublisher fed by a producer thread; it delivers on the common pool. */
  static Flow.Publisher<Integer> submissionPublisher(Executor producers) {
    return subscriber -> {
      SubmissionPublisher<Integer> publisher = new SubmissionPublisher<>();
      publisher.subscribe(subscriber);
      producers.execute(
          () -> {
            try {
              for (int i = 0; i < ITEMS && !publisher.isClosed(); i++) {
                publisher.submit(i);
              }
            } finally {
              publisher.close();
            }
          });
    };
  }

  /** Reads every item with unbounded demand, as most consumers do. */
  static <T> long drain(Flow.Publisher<T> publisher, Blackhole bh) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    long[] count = new long[1];
    Throwable[] failure = new Throwable[1];
    publisher.subscribe(
        new Flow.Subscriber<T>() {
          @Override
          public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
          }

          @Override
          public void onNext(T item) {
            bh.consume(item);
            count[0]++;
          }

          @Override
          public void onError(Throwable throwable) {
            failure[0] = throwable;
            done.countDown();
          }

          @Override
          public void onComplete() {
            done.countDown();
          }
        });
    if (!done.await(60, TimeUnit.SECONDS) || failure[0] != null || count[0] != ITEMS) {
      throw new IllegalStateException("stream did not deliver " + ITEMS + ": " + failure[0]);
    }
    return count[0];
  }

  /** Publishes 0..count-1 synchronously on the requesting thread, honouring demand. */
  static final class RangePublisher implements Flow.Publisher<Integer> {
    private final int count;

    RangePublisher(int count) {
      this.count = count;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Integer> subscriber) {
      subscriber.onSubscribe(
          new Flow.Subscription() {
            private int next;
            private long demand;
            private boolean emitting;
            private boolean cancelled;

            @Override
            public void request(long n) {
              demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
              if (emitting) {
                return; // re-entrant request: the running loop picks the demand up
              }
              emitting = true;
              while (demand > 0 && next < count && !cancelled) {
                demand--;
                subscriber.onNext(next++);
              }
              emitting = false;
              if (next == count && !cancelled) {
                cancelled = true;
                subscriber.onComplete();
              }
            }

            @Override
            public void cancel() {
              cancelled = true;
            }
          });
    }
  }
}
