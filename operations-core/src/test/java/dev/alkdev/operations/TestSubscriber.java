package dev.alkdev.operations;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/** Records what a publisher sends; requests only what the test asks for. */
final class TestSubscriber<T> implements Flow.Subscriber<T> {
  final List<T> items = new CopyOnWriteArrayList<>();
  final CountDownLatch terminated = new CountDownLatch(1);
  volatile Throwable error;
  volatile boolean completed;
  volatile Flow.Subscription subscription;
  private final long initialRequest;
  volatile int signalsAfterTerminal;

  TestSubscriber(long initialRequest) {
    this.initialRequest = initialRequest;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (initialRequest > 0) {
      s.request(initialRequest);
    }
  }

  @Override
  public void onNext(T item) {
    if (terminated.getCount() == 0) {
      signalsAfterTerminal++;
    }
    items.add(item);
  }

  @Override
  public void onError(Throwable t) {
    if (terminated.getCount() == 0) {
      signalsAfterTerminal++;
    }
    error = t;
    terminated.countDown();
  }

  @Override
  public void onComplete() {
    if (terminated.getCount() == 0) {
      signalsAfterTerminal++;
    }
    completed = true;
    terminated.countDown();
  }

  void request(long n) {
    subscription.request(n);
  }

  void cancel() {
    subscription.cancel();
  }

  boolean awaitTerminal() throws InterruptedException {
    return terminated.await(5, TimeUnit.SECONDS);
  }

  void awaitItems(int count) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (items.size() < count && System.nanoTime() < end) {
      Thread.sleep(1);
    }
  }
}
