package dev.alkdev.operations.remote.internal;

import dev.alkdev.operations.internal.HandlerExecutors;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A future whose outcome may be delivered on a transport's I/O thread without running anybody's
 * code there (D73). {@link #deliver} only records the outcome and wakes the threads waiting in
 * {@link #get()} or {@link #join()}; the future itself completes, and runs its dependents ({@code
 * thenApply}, {@code whenComplete}, {@code allOf} ...), on one of those threads when one waits,
 * else on a pool thread, one for a burst of replies ({@link SettleLane}, D82). So a dependent that
 * blocks holds up its own thread, and the replies queued behind it for about a millisecond, once,
 * until another thread takes them over; a caller blocked in {@code join()} costs one wake-up, as
 * with the transport's raw request/reply.
 *
 * <p>Why not override the dependent methods ({@code thenApply} ...) to register their async
 * variants instead: {@code allOf}, {@code anyOf} and other futures' combinators push their
 * completions onto this one without calling any method a subclass can override, so user code would
 * still run on the I/O thread. Completing the future only on a safe thread covers every path.
 *
 * <p>Until the creator calls {@link #publish()} (when it hands the future out), a delivered outcome
 * waits: a reply that arrives while the call is still being made (in-process delivery runs the
 * whole round trip on the caller's thread, D14) completes the future on that thread, at no cost.
 *
 * <p>Internal callers that keep the future to themselves and whose continuation is known not to
 * block use {@link #whenCompleteInline}: the future then completes on the delivering thread.
 */
public final class ReplyFuture<T> extends CompletableFuture<T> {
  /**
   * Where an outcome nobody waits for completes its future: a cached pool of daemon threads (idle
   * ones are reused; while all are busy, because a dependent blocks, the next gets a new thread; a
   * thread idle for 10 s ends). Not the common pool: on a machine with fewer than three CPUs it has
   * one thread, which one blocking dependent would take from every other reply.
   */
  private static final Executor COMPLETIONS =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          10,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          HandlerExecutors.daemonThreads("operations-reply"));

  /**
   * Where delivered outcomes nobody waits for are completed: one pool thread runs a burst of them,
   * and another takes over from one whose dependent blocks (D82, {@link SettleLane}).
   */
  private static final SettleLane<ReplyFuture<?>> LANE =
      new SettleLane<>(COMPLETIONS, ReplyFuture::settle);

  private static final Object NULL = new Object();

  private record Failure(Throwable error) {}

  // Written under this future's monitor; volatile so isDone() reads it without.
  private volatile Object outcome; // delivered, maybe not yet completed: a value, NULL or Failure
  private boolean published; // guarded by this
  private boolean inline; // guarded by this
  private int waiters; // guarded by this
  private volatile Runnable onCancel; // the creator's: tells the other side

  /** A future to {@link #publish()} once handed out. */
  public ReplyFuture() {}

  /**
   * Records the outcome (the first one wins) and wakes whoever waits; never runs a dependent on
   * this thread unless the future was made {@link #whenCompleteInline inline}. Safe on any thread.
   *
   * @return whether this outcome was taken (false: the future had one already, or was cancelled)
   */
  public boolean deliver(T value) {
    return deliverOutcome(value == null ? NULL : value);
  }

  /** {@link #deliver} of a failure. */
  public boolean deliverError(Throwable error) {
    return deliverOutcome(new Failure(error));
  }

  private boolean deliverOutcome(Object delivered) {
    boolean settleHere;
    synchronized (this) {
      if (outcome != null || super.isDone()) {
        return false;
      }
      outcome = delivered;
      if (!published) {
        return true; // publish() completes it
      }
      settleHere = inline;
      if (!settleHere && waiters > 0) {
        notifyAll(); // a waiter completes it on its own thread
        return true;
      }
    }
    if (settleHere) {
      settle();
    } else {
      LANE.submit(this); // completed, and its dependents run, on a pool thread
    }
    return true;
  }

  /**
   * What the creator does when the future is cancelled (at most once, on the cancelling thread),
   * instead of a dependent: a future with no dependents completes without a thread of its own.
   */
  public void onCancel(Runnable action) {
    onCancel = action;
  }

  private void cancelled() {
    Runnable action = onCancel;
    if (action != null) {
      onCancel = null;
      action.run();
    }
  }

  /**
   * The creator hands the future out: an outcome delivered meanwhile completes it now, on this
   * thread (the creator's: only its own dependents exist yet).
   */
  public void publish() {
    synchronized (this) {
      published = true;
      if (outcome == null) {
        return;
      }
    }
    settle();
  }

  /**
   * For internal callers that keep this future to themselves and whose {@code action} never blocks:
   * the future completes on the thread that delivers its outcome, running {@code action} there.
   */
  public void whenCompleteInline(BiConsumer<? super T, ? super Throwable> action) {
    synchronized (this) {
      inline = true;
    }
    super.whenComplete(action);
    if (outcome != null) {
      settle(); // delivered before this was inline: may still wait for a pool thread
    }
  }

  /**
   * Runs {@code task} on the reply lane, never on this thread: for the rare work an I/O thread must
   * not do itself (it may run users' code), found by a check that may run inline.
   */
  public static void runOnLane(Runnable task) {
    ReplyFuture<Void> hop = new ReplyFuture<>();
    hop.whenComplete((ignored, never) -> task.run());
    hop.publish();
    hop.deliver(null);
  }

  /** {@link #whenCompleteInline} when {@code future} is a reply future, else whenComplete. */
  public static <T> void whenCompleteInline(
      CompletableFuture<T> future, BiConsumer<? super T, ? super Throwable> action) {
    if (future instanceof ReplyFuture<T> reply) {
      reply.whenCompleteInline(action);
    } else {
      future.whenComplete(action);
    }
  }

  /** Completes the future with the delivered outcome (idempotent). */
  @SuppressWarnings("unchecked")
  private void settle() {
    Object delivered = outcome;
    if (delivered instanceof Failure failure) {
      super.completeExceptionally(failure.error());
    } else if (delivered != null) {
      super.complete(delivered == NULL ? null : (T) delivered);
    }
  }

  // ------------------------------------------------------------------ waiting

  @Override
  public T get() throws InterruptedException, ExecutionException {
    try {
      await(true, -1);
    } catch (TimeoutException e) {
      throw new AssertionError("an untimed wait timed out", e);
    }
    return super.get();
  }

  @Override
  public T get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    await(true, Math.max(0, unit.toNanos(timeout)));
    return super.get(0, TimeUnit.NANOSECONDS);
  }

  @Override
  public T join() {
    try {
      await(false, -1);
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("an uninterruptible, untimed wait ended early", e);
    }
    return super.join();
  }

  @Override
  public T getNow(T valueIfAbsent) {
    if (outcome != null) {
      settle(); // on the caller's thread, which asked for the outcome
    }
    return super.getNow(valueIfAbsent);
  }

  /**
   * {@code Future.resultNow()} of JDK 19 and later (this overrides it there; on 17 it is one more
   * method): settles a delivered outcome first, so a future {@link #isDone} says is done never
   * answers "not completed".
   */
  public T resultNow() {
    settleIfDelivered();
    if (super.isCompletedExceptionally()) {
      throw new IllegalStateException(
          isCancelled() ? "Task was cancelled" : "Task completed with exception");
    }
    return super.getNow(null);
  }

  /** {@code Future.exceptionNow()} of JDK 19 and later, settling first as {@link #resultNow}. */
  public Throwable exceptionNow() {
    settleIfDelivered();
    if (isCancelled()) {
      throw new IllegalStateException("Task was cancelled");
    }
    if (!super.isCompletedExceptionally()) {
      throw new IllegalStateException("Task completed with a result");
    }
    try {
      super.join();
      throw new IllegalStateException("Task completed with a result");
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause() != null ? e.getCause() : e;
    }
  }

  private void settleIfDelivered() {
    if (outcome != null) {
      settle();
    }
    if (!super.isDone()) {
      throw new IllegalStateException("Task has not completed");
    }
  }

  @Override
  public boolean isDone() {
    return outcome != null || super.isDone();
  }

  @Override
  public boolean isCompletedExceptionally() {
    if (outcome != null) {
      settle();
    }
    return super.isCompletedExceptionally();
  }

  /**
   * Waits until an outcome is delivered or the future completes otherwise, then completes it here.
   * {@code nanos} below zero waits without a limit.
   */
  private void await(boolean interruptible, long nanos)
      throws InterruptedException, TimeoutException {
    if (super.isDone()) {
      return;
    }
    boolean interrupted = false;
    InterruptedException interruption = null;
    boolean timedOut = false;
    synchronized (this) {
      waiters++;
      try {
        long end = nanos < 0 ? 0 : System.nanoTime() + nanos;
        while (outcome == null && !super.isDone()) {
          try {
            if (nanos < 0) {
              wait();
            } else {
              long left = end - System.nanoTime();
              if (left <= 0) {
                timedOut = true;
                break;
              }
              TimeUnit.NANOSECONDS.timedWait(this, left);
            }
          } catch (InterruptedException e) {
            if (interruptible) {
              interruption = e;
              break;
            }
            interrupted = true;
          }
        }
      } finally {
        waiters--;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (outcome != null) {
      settle(); // woken by the delivery: this thread completes the future
      return;
    }
    if (interruption != null) {
      throw interruption;
    }
    if (timedOut && !super.isDone()) {
      throw new TimeoutException();
    }
  }

  /** Wakes waiters after the future completed by another way than a delivery. */
  private void wake() {
    synchronized (this) {
      if (waiters > 0) {
        notifyAll();
      }
    }
  }

  // ------------------------------------------------------------------ completing otherwise

  @Override
  public boolean complete(T value) {
    boolean done = super.complete(value);
    wake();
    return done;
  }

  @Override
  public boolean completeExceptionally(Throwable error) {
    boolean done = super.completeExceptionally(error);
    wake();
    if (done && error instanceof CancellationException) {
      cancelled();
    }
    return done;
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    synchronized (this) {
      if (outcome != null) {
        return false; // the reply is here: too late to cancel
      }
    }
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    wake();
    if (cancelled) {
      cancelled();
    }
    return cancelled;
  }

  @Override
  public void obtrudeValue(T value) {
    super.obtrudeValue(value);
    wake();
  }

  @Override
  public void obtrudeException(Throwable error) {
    super.obtrudeException(error);
    wake();
  }

  @Override
  public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor executor) {
    executor.execute(
        () -> {
          try {
            complete(supplier.get());
          } catch (Throwable e) {
            completeExceptionally(e);
          }
        });
    return this;
  }

  @Override
  public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier) {
    return completeAsync(supplier, defaultExecutor());
  }

  /** Dependents are plain futures: they complete on the thread that completes this one. */
  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new CompletableFuture<>();
  }
}
