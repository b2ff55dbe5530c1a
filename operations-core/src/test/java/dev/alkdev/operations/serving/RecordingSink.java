package dev.alkdev.operations.serving;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * Records what the pipeline tells a sink, and catches broken promises: a signal after the end, two
 * signals at once.
 */
final class RecordingSink implements CallSink {
  final List<String> signals = new CopyOnWriteArrayList<>();
  final List<JsonNode> items = new CopyOnWriteArrayList<>();
  final CountDownLatch ended = new CountDownLatch(1);
  final AtomicInteger terminals = new AtomicInteger();
  final AtomicInteger afterEnd = new AtomicInteger();
  final AtomicInteger overlapping = new AtomicInteger();
  private final AtomicInteger inside = new AtomicInteger();
  volatile ServedCall started;
  volatile ResponseEnvelope<JsonNode> result;
  volatile CallError error;

  @Override
  public void onStart(ServedCall call) {
    started = call;
  }

  @Override
  public void onResult(ResponseEnvelope<JsonNode> result) {
    enter("result");
    this.result = result;
    end();
  }

  @Override
  public void onItem(ResponseEnvelope<JsonNode> item) {
    enter("item");
    items.add(item.data());
    leave();
  }

  @Override
  public void onComplete() {
    enter("complete");
    end();
  }

  @Override
  public void onError(CallError error) {
    enter("error " + error.code());
    this.error = error;
    end();
  }

  private void enter(String signal) {
    if (inside.incrementAndGet() > 1) {
      overlapping.incrementAndGet();
    }
    if (ended.getCount() == 0) {
      afterEnd.incrementAndGet();
    }
    signals.add(signal);
  }

  private void leave() {
    inside.decrementAndGet();
  }

  private void end() {
    terminals.incrementAndGet();
    ended.countDown();
    leave();
  }

  RecordingSink awaitEnd() throws InterruptedException {
    if (!ended.await(5, TimeUnit.SECONDS)) {
      throw new AssertionError("the call did not end; signals: " + signals);
    }
    return this;
  }
}
