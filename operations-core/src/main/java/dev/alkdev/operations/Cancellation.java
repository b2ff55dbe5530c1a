package dev.alkdev.operations;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A cancellation signal shared by a call and everything it starts. Cancelling it runs the
 * registered actions once, and cancels every child; a child cancelled alone leaves its parent
 * running. Thread-safe.
 */
public final class Cancellation {
  private final Object lock = new Object();
  // Guarded by lock; made on the first registration, with room for the usual one or two (a call's
  // deadline, its child link): most signals are never cancelled, and a default-sized list showed
  // in a plain call's profile. Null again once cancelled.
  private List<Runnable> actions;
  private volatile CallError reason;

  private Cancellation() {}

  /** A fresh signal that nothing has cancelled. */
  public static Cancellation create() {
    return new Cancellation();
  }

  /** A signal cancelled when this one is (with the same reason), or on its own. */
  public Cancellation child() {
    Cancellation child = new Cancellation();
    Registration link = onCancel(() -> child.cancel(reason));
    child.onCancel(link::remove);
    return child;
  }

  public boolean isCancelled() {
    return reason != null;
  }

  /** Why it was cancelled: a {@link CallError} with code CANCELLED or DEADLINE_EXCEEDED. */
  public Optional<CallError> reason() {
    return Optional.ofNullable(reason);
  }

  /**
   * Cancels, once: later calls do nothing. Runs the registered actions on this thread; an action
   * that throws does not stop the others.
   */
  public void cancel(CallError why) {
    Objects.requireNonNull(why, "why");
    List<Runnable> toRun;
    synchronized (lock) {
      if (reason != null) {
        return;
      }
      reason = why;
      toRun = actions;
      actions = null;
    }
    if (toRun == null) {
      return;
    }
    for (Runnable action : toRun) {
      try {
        action.run();
      } catch (RuntimeException e) {
        // One faulty listener must not keep the others (or the caller) from being cancelled.
      }
    }
  }

  /**
   * Runs {@code action} when this is cancelled, at once if it already is. Remove the registration
   * when the work it guards is over, so long-lived signals do not collect actions.
   */
  public Registration onCancel(Runnable action) {
    Objects.requireNonNull(action, "action");
    synchronized (lock) {
      if (reason == null) {
        if (actions == null) {
          actions = new ArrayList<>(2);
        }
        actions.add(action);
        return () -> {
          synchronized (lock) {
            if (actions != null) {
              actions.remove(action);
            }
          }
        };
      }
    }
    action.run();
    return () -> {};
  }
}
