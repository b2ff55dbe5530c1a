package dev.alkdev.operations.remote.internal;

import java.util.concurrent.TimeUnit;

/**
 * Wake-ups held back while a transport's I/O thread delivers a run of messages, the mechanism
 * behind {@link dev.alkdev.operations.pubsub.DeliveryBatch} (D86). A {@link SettleLane} that would
 * wake a pool thread for each reply the I/O thread hands it asks to be woken once, when the run
 * ends: with 64 calls in flight, that pool thread's wake-up (a futex call on each side, several
 * microseconds on a virtual machine) was one per two or three replies, and the largest single cost
 * the protocol added to a call over NATS (D86 in docs/decisions/).
 *
 * <p>What is held is bounded: {@link #MAX_HELD} wakes, or {@link #MAX_HOLD_NANOS} since the first
 * (checked at each delivery), release everything at once, and a lane that holds work arms a rescue
 * that starts a worker at the timer thread's next look, within {@link Scheduler#MAX_SLEEP_NANOS},
 * even if the run never ends (a transport that forgot to say so, a thread that died). Per thread,
 * so never contended.
 */
public final class HeldWakeups {
  /** Wakes held before the first is released anyway. */
  static final int MAX_HELD = 64;

  /** Longest a held wake waits for the run's end. */
  static final long MAX_HOLD_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

  private static final ThreadLocal<HeldWakeups> CURRENT = ThreadLocal.withInitial(HeldWakeups::new);

  private boolean open;
  private int held;
  private long firstHeldAt;
  // Almost always one lane (the reply futures'); a second is kept in a small array.
  private Runnable[] wakes = new Runnable[2];
  private int distinct;

  private HeldWakeups() {}

  /** Marks a run of deliveries on this thread as under way: wakes asked for now are held. */
  public static void open() {
    CURRENT.get().open = true;
  }

  /**
   * Ends this thread's run (if {@code runEnds}) and releases what it held; with {@code runEnds}
   * false, releases only what has been held past the bounds.
   */
  public static void afterDelivery(boolean runEnds) {
    HeldWakeups state = CURRENT.get();
    if (runEnds) {
      state.open = false;
      state.release();
    } else if (state.held > 0 && System.nanoTime() - state.firstHeldAt > MAX_HOLD_NANOS) {
      state.release();
    }
  }

  /**
   * Holds {@code wake} until this thread's run ends, if one is under way; false if none is (the
   * caller wakes at once). A wake held twice runs once.
   */
  static boolean hold(Runnable wake) {
    HeldWakeups state = CURRENT.get();
    if (!state.open) {
      return false;
    }
    if (state.held++ == 0) {
      state.firstHeldAt = System.nanoTime();
    }
    state.remember(wake);
    if (state.held >= MAX_HELD) {
      state.release();
    }
    return true;
  }

  private void remember(Runnable wake) {
    for (int i = 0; i < distinct; i++) {
      if (wakes[i] == wake) {
        return;
      }
    }
    if (distinct == wakes.length) {
      wakes = java.util.Arrays.copyOf(wakes, distinct * 2);
    }
    wakes[distinct++] = wake;
  }

  private void release() {
    int count = distinct;
    held = 0;
    distinct = 0;
    for (int i = 0; i < count; i++) {
      Runnable wake = wakes[i];
      wakes[i] = null;
      try {
        wake.run();
      } catch (RuntimeException e) {
        // A wake only starts a worker; one that cannot is covered by its lane's watch.
      }
    }
  }
}
