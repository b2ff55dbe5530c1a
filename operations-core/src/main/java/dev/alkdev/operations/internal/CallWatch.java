package dev.alkdev.operations.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Ties work to a call's deadline and cancellation signal: the one place that arms the deadline
 * timer and the cancellation listener, reports once why the work must stop, and releases both when
 * the work ends first, so a long-lived signal or the timer never collects finished calls.
 *
 * <p>The reason is reported on the thread that cancelled the signal, or, for the deadline, on the
 * {@link Scheduler}'s task threads, never on the timer thread itself.
 */
public final class CallWatch implements Registration {
  /** Sets {@link #ended} once; a field updater, not an AtomicBoolean: one object less per call. */
  private static final AtomicIntegerFieldUpdater<CallWatch> ENDED =
      AtomicIntegerFieldUpdater.newUpdater(CallWatch.class, "ended");

  private final Consumer<CallError> onEnd;
  private volatile int ended;
  private volatile Scheduler.Timer timer;
  private volatile Registration listener;

  private CallWatch(Consumer<CallError> onEnd) {
    this.onEnd = onEnd;
  }

  /**
   * Calls {@code onEnd} once, with the signal's reason when it is cancelled or a DEADLINE_EXCEEDED
   * error with {@code deadlineMessage} when the deadline passes (at once if it already has).
   * Removing the returned registration before then disarms both; removing it later does nothing.
   */
  public static Registration watch(
      Optional<Deadline> deadline,
      Optional<Cancellation> cancellation,
      String deadlineMessage,
      Consumer<CallError> onEnd) {
    Objects.requireNonNull(deadlineMessage, "deadlineMessage");
    CallWatch watch = new CallWatch(Objects.requireNonNull(onEnd, "onEnd"));
    if (cancellation.isPresent()) {
      Cancellation signal = cancellation.get();
      watch.listener =
          signal.onCancel(
              () ->
                  watch.end(
                      signal
                          .reason()
                          .orElseGet(() -> CallError.of(ErrorCode.CANCELLED, "Cancelled"))));
    }
    if (deadline.isPresent() && watch.ended == 0) {
      long nanos = deadline.get().remaining().toNanos();
      Runnable expire = () -> watch.end(CallError.of(ErrorCode.DEADLINE_EXCEEDED, deadlineMessage));
      if (nanos <= 0) {
        expire.run();
      } else {
        watch.timer = Scheduler.schedule(expire, nanos);
      }
    }
    if (watch.ended != 0) {
      watch.release(); // it ended while being armed, before its timer or listener was stored
    }
    return watch;
  }

  /**
   * A future that completes as {@code work} does, unless the signal is cancelled or the deadline
   * passes first: then {@code work} is cancelled, and the future fails with the reason once it is.
   * However it ends, the timer and the listener are released and unfinished work is cancelled.
   */
  public static <T> CompletableFuture<T> bind(
      CompletableFuture<T> work,
      Optional<Deadline> deadline,
      Cancellation cancellation,
      String deadlineMessage) {
    Objects.requireNonNull(work, "work");
    CompletableFuture<T> bound = new CompletableFuture<>();
    AtomicReference<CallError> ended = new AtomicReference<>();
    Registration watch =
        watch(
            deadline,
            Optional.of(cancellation),
            deadlineMessage,
            why -> {
              ended.set(why);
              // Released before anyone hears of the failure; the work's own end reports `why`.
              work.cancel(true);
              bound.completeExceptionally(why);
            });
    bound.whenComplete(
        (value, error) -> {
          watch.remove();
          work.cancel(true); // does nothing to work that is done
        });
    work.whenComplete(
        (value, error) -> {
          if (error == null) {
            bound.complete(value);
          } else {
            CallError why = ended.get();
            bound.completeExceptionally(why != null ? why : error);
          }
        });
    return bound;
  }

  private void end(CallError why) {
    if (ENDED.compareAndSet(this, 0, 1)) {
      release();
      onEnd.accept(why);
    }
  }

  @Override
  public void remove() {
    if (ENDED.compareAndSet(this, 0, 1)) {
      release();
    }
  }

  private void release() {
    Scheduler.Timer t = timer;
    if (t != null) {
      t.cancel();
    }
    Registration l = listener;
    if (l != null) {
      l.remove();
    }
  }
}
