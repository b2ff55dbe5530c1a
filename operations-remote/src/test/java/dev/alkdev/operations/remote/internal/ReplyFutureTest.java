package dev.alkdev.operations.remote.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** D73: a delivered outcome never runs anybody's code on the delivering thread. */
@Timeout(30)
class ReplyFutureTest {
  private static final long WAIT_MS = 5_000;

  @Test
  void dependentsDoNotRunOnTheDeliveringThread() throws Exception {
    ReplyFuture<String> future = published();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    CompletableFuture<String> applied =
        future.thenApply(
            value -> {
              ranOn.set(Thread.currentThread());
              return value + "!";
            });
    AtomicReference<Thread> allOfRanOn = new AtomicReference<>();
    CompletableFuture<Void> all =
        CompletableFuture.allOf(future).thenRun(() -> allOfRanOn.set(Thread.currentThread()));

    Thread deliverer = deliverOnNewThread(future, "value");

    assertThat(applied.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo("value!");
    all.get(WAIT_MS, TimeUnit.MILLISECONDS);
    assertThat(ranOn.get()).isNotNull().isNotSameAs(deliverer);
    // allOf pushes its completion without any method a subclass could override.
    assertThat(allOfRanOn.get()).isNotNull().isNotSameAs(deliverer);
  }

  @Test
  void aBlockingDependentDoesNotHoldUpTheDeliveringThread() throws Exception {
    ReplyFuture<String> first = published();
    ReplyFuture<String> second = published();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocked = new CountDownLatch(1);
    first.thenRun(
        () -> {
          blocked.countDown();
          await(release);
        });
    CountDownLatch delivered = new CountDownLatch(1);
    Thread deliverer =
        new Thread(
            () -> {
              first.deliver("first");
              second.deliver("second");
              delivered.countDown();
            });
    deliverer.start();
    try {
      assertThat(delivered.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
      assertThat(second.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo("second");
      assertThat(blocked.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
    } finally {
      release.countDown();
    }
  }

  /**
   * D82: replies nobody waits for complete a burst at a time on one pool thread, and a dependent
   * that blocks holds up only its own reply: the dependents of replies delivered after it run
   * within a watch or two, on another thread.
   */
  @Test
  void aBlockingDependentDelaysTheRepliesBehindItOnlyBriefly() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocked = new CountDownLatch(1);
    ReplyFuture<String> stuck = published();
    stuck.thenRun(
        () -> {
          blocked.countDown();
          await(release);
        });
    int behind = 50;
    List<ReplyFuture<String>> later = new ArrayList<>();
    CountDownLatch ran = new CountDownLatch(behind);
    for (int i = 0; i < behind; i++) {
      ReplyFuture<String> f = published();
      f.thenRun(ran::countDown);
      later.add(f);
    }
    try {
      Thread deliverer =
          new Thread(
              () -> {
                stuck.deliver("stuck");
                later.forEach(f -> f.deliver("later"));
              });
      deliverer.start();
      assertThat(blocked.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
      long started = System.nanoTime();
      assertThat(ran.await(WAIT_MS, TimeUnit.MILLISECONDS))
          .as("every later reply's dependent ran while the first one's blocks")
          .isTrue();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
          .as("about a watch (%d ms), far from the blocking dependent's release", 1)
          .isLessThan(1_000);
    } finally {
      release.countDown();
    }
  }

  /**
   * D86: replies a transport's I/O thread delivers in one run (DeliveryBatch) complete, off that
   * thread, once the run ends: the pool thread is woken for the run, not for each reply.
   */
  @Test
  void repliesDeliveredInARunCompleteOffTheDeliveringThread() throws Exception {
    int run = 100; // more than HeldWakeups.MAX_HELD: the run releases what it held on the way too
    List<ReplyFuture<String>> futures = new ArrayList<>();
    java.util.Set<Thread> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    for (int i = 0; i < run; i++) {
      ReplyFuture<String> f = published();
      f.thenRun(() -> threads.add(Thread.currentThread()));
      futures.add(f);
    }
    CompletableFuture<Void> all =
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new));
    Thread deliverer =
        new Thread(
            () -> {
              for (int i = 0; i < run; i++) {
                ReplyFuture<String> f = futures.get(i);
                dev.alkdev.operations.pubsub.DeliveryBatch.deliver(
                    () -> f.deliver("x"), i < run - 1);
              }
            });
    deliverer.start();
    all.get(WAIT_MS, TimeUnit.MILLISECONDS);
    assertThat(threads).isNotEmpty().doesNotContain(deliverer);
  }

  /** D86: a run whose end never comes (a transport that forgot it) still gets its replies done. */
  @Test
  void aRunThatNeverEndsStillCompletesItsReplies() throws Exception {
    ReplyFuture<String> future = published();
    CountDownLatch ran = new CountDownLatch(1);
    future.thenRun(ran::countDown);
    CountDownLatch deliveredInRun = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    Thread deliverer =
        new Thread(
            () -> {
              dev.alkdev.operations.pubsub.DeliveryBatch.deliver(
                  () -> future.deliver("x"), true); // more follow, but none ever comes
              deliveredInRun.countDown();
              await(done); // the thread stays, its run open
            });
    deliverer.start();
    try {
      assertThat(deliveredInRun.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
      long started = System.nanoTime();
      assertThat(ran.await(WAIT_MS, TimeUnit.MILLISECONDS))
          .as("the lane's rescue starts a worker for work a run held")
          .isTrue();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1_000);
    } finally {
      done.countDown();
    }
  }

  @Test
  void aBurstOfRepliesWithDependentsCompletesOnFewThreads() throws Exception {
    int burst = 64;
    List<ReplyFuture<String>> futures = new ArrayList<>();
    java.util.Set<Thread> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    for (int i = 0; i < burst; i++) {
      ReplyFuture<String> f = published();
      f.thenRun(() -> threads.add(Thread.currentThread()));
      futures.add(f);
    }
    CompletableFuture<Void> all =
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new));
    Thread deliverer = new Thread(() -> futures.forEach(f -> f.deliver("x")));
    deliverer.start();
    all.get(WAIT_MS, TimeUnit.MILLISECONDS);
    assertThat(threads).doesNotContain(deliverer);
    // One lane worker, perhaps a second started by a watch on a slow machine: never one each.
    assertThat(threads.size()).isLessThan(8);
  }

  @Test
  void aWaiterIsWokenAndCompletesTheFutureOnItsOwnThread() throws Exception {
    ReplyFuture<String> future = published();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    future.whenComplete((value, error) -> ranOn.set(Thread.currentThread()));
    Thread deliverer = new Thread(() -> future.deliver("value"));

    CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS).execute(deliverer::start);

    assertThat(future.join()).isEqualTo("value");
    assertThat(future.isDone()).isTrue();
    assertThat(ranOn.get()).isSameAs(Thread.currentThread());
  }

  @Test
  void anOutcomeDeliveredBeforePublishCompletesTheFutureOnThePublishingThread() {
    ReplyFuture<String> future = new ReplyFuture<>();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    future.whenComplete((value, error) -> ranOn.set(Thread.currentThread()));

    future.deliver("early");
    assertThat(ranOn.get()).isNull();
    future.publish();

    assertThat(future.getNow(null)).isEqualTo("early");
    assertThat(ranOn.get()).isSameAs(Thread.currentThread());
  }

  @Test
  void anInlineFutureCompletesOnTheDeliveringThread() throws Exception {
    ReplyFuture<String> future = published();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    CountDownLatch ran = new CountDownLatch(1);
    future.whenCompleteInline(
        (value, error) -> {
          ranOn.set(Thread.currentThread());
          ran.countDown();
        });

    Thread deliverer = deliverOnNewThread(future, "value");

    assertThat(ran.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
    assertThat(ranOn.get()).isSameAs(deliverer);
  }

  @Test
  void aFailureIsDeliveredAsTheFuturesException() {
    ReplyFuture<String> future = published();
    IllegalStateException failure = new IllegalStateException("broken");

    new Thread(() -> future.deliverError(failure)).start();

    assertThatThrownBy(() -> future.get(WAIT_MS, TimeUnit.MILLISECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCause(failure);
    assertThat(future.isCompletedExceptionally()).isTrue();
  }

  @Test
  void onlyTheFirstOutcomeCountsAndACancelAfterItDoesNothing() throws Exception {
    ReplyFuture<String> future = published();

    assertThat(future.deliver("first")).isTrue();
    assertThat(future.deliver("second")).isFalse();
    assertThat(future.deliverError(new IllegalStateException())).isFalse();
    assertThat(future.cancel(false)).isFalse();

    assertThat(future.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo("first");
  }

  @Test
  void aCancelledFutureTakesNoOutcomeAndWakesItsWaiter() throws Exception {
    ReplyFuture<String> future = published();
    CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS)
        .execute(() -> future.cancel(false));

    assertThatThrownBy(future::join).isInstanceOf(CancellationException.class);
    assertThat(future.deliver("late")).isFalse();
  }

  @Test
  void futuresDeliveredWithNobodyWaitingStillCompleteForAnAllOfMadeLater() throws Exception {
    List<ReplyFuture<String>> futures = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      futures.add(published());
    }
    Thread deliverer =
        new Thread(
            () -> {
              for (int i = 0; i < futures.size(); i++) {
                futures.get(i).deliver("v" + i);
              }
            });
    deliverer.start();
    deliverer.join(WAIT_MS);

    // allOf reads the futures' state directly: they must really complete, not only be delivered.
    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .get(WAIT_MS, TimeUnit.MILLISECONDS);
    assertThat(futures.get(99).getNow(null)).isEqualTo("v99");
  }

  @Test
  void cancellingRunsTheCreatorsActionOnce() {
    ReplyFuture<String> future = published();
    AtomicInteger cancels = new AtomicInteger();
    future.onCancel(cancels::incrementAndGet);

    assertThat(future.cancel(false)).isTrue();
    assertThat(future.cancel(false)).as("still cancelled, as CompletableFuture says").isTrue();

    assertThat(cancels.get()).isEqualTo(1);
    assertThat(future.isCancelled()).isTrue();
  }

  @Test
  void aTimedGetWithoutAnOutcomeTimesOut() {
    ReplyFuture<String> future = published();

    assertThatThrownBy(() -> future.get(20, TimeUnit.MILLISECONDS))
        .isInstanceOf(TimeoutException.class);
    assertThat(future.isDone()).isFalse();
  }

  @Test
  void aDeliveredOutcomeIsReadableAtOnceBeforeAnyThreadCompletedTheFuture() {
    ReplyFuture<String> value = new ReplyFuture<>();
    value.deliver("value"); // not published: nothing completes it until publish()
    ReplyFuture<String> failure = new ReplyFuture<>();
    IllegalStateException boom = new IllegalStateException("boom");
    failure.deliverError(boom);

    assertThat(value.isDone()).isTrue();
    assertThat(value.resultNow()).isEqualTo("value");
    assertThatThrownBy(value::exceptionNow).isInstanceOf(IllegalStateException.class);
    assertThat(failure.isDone()).isTrue();
    assertThat(failure.exceptionNow()).isSameAs(boom);
    assertThatThrownBy(failure::resultNow).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(published()::resultNow)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Task has not completed");
  }

  private static ReplyFuture<String> published() {
    ReplyFuture<String> future = new ReplyFuture<>();
    future.publish();
    return future;
  }

  private static Thread deliverOnNewThread(ReplyFuture<String> future, String value)
      throws InterruptedException {
    Thread deliverer = new Thread(() -> future.deliver(value), "deliverer");
    deliverer.start();
    deliverer.join(WAIT_MS);
    return deliverer;
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
