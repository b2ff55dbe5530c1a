package dev.alkdev.operations.schema.internal;

import java.time.Duration;
import java.util.Locale;

/**
 * The time all regular-expression matches of one validation, or of one cast, may take together
 * ({@code SchemaLimits.maxRegexTime}). A bound per match is not enough: 2,000 strings that each
 * take a few milliseconds stay under any per-match bound and still cost seconds together.
 *
 * <p>{@link CompiledSchema} and the caster {@link #open} a budget around each call; the matches
 * ({@link BoundedPattern}) find it through a thread-local because networknt's regex hook ({@code
 * RegularExpression.matches(String)}) passes nothing else. Budgets nest: {@link #close} puts back
 * the one that was open before, so a validation started inside another has its own budget and the
 * outer one is intact afterwards. A budget is used by the thread that opened it only, which is also
 * why a thread-local is safe on virtual threads.
 *
 * <p>Only time spent inside matches is charged, so a large value that is slow for other reasons is
 * not refused for it. Reading the clock costs about as much as a short match, so it is read every
 * {@value #CHECK_EVERY} characters the matcher reads (backtracking re-reads characters, so a
 * runaway match is noticed within microseconds), and a validation starts timing its matches from
 * their first character only once its matches have read {@value #UNTIMED_READS} characters: an
 * ordinary value never reads the clock at all, and what goes uncharged is bounded.
 */
public final class RegexBudget implements AutoCloseable {
  /**
   * The budget open on each thread. A holder per thread rather than a thread-local set and removed
   * per call: opening and closing is then one thread-local lookup and two field writes, which a
   * validation of a few microseconds can afford. Closed budgets are not kept.
   */
  private static final ThreadLocal<Holder> CURRENT = ThreadLocal.withInitial(Holder::new);

  private static final class Holder {
    private RegexBudget open;
  }

  /** Characters read between two looks at the clock (a power of two: the test is a mask). */
  static final int CHECK_EVERY = 256;

  /** Characters the matches of one budget read before each match is timed from its start. */
  static final long UNTIMED_READS = 1 << 16;

  private final long limitNanos;
  private final Holder holder;
  private final RegexBudget previous;
  private long spentNanos;
  private long reads;
  private boolean timing;
  private boolean tripped;

  private RegexBudget(long limitNanos, Holder holder, RegexBudget previous) {
    this.limitNanos = limitNanos;
    this.holder = holder;
    this.previous = previous;
  }

  /**
   * Opens a budget for the matches this thread runs until {@link #close}; use with
   * try-with-resources on the same thread.
   */
  public static RegexBudget open(Duration limit) {
    Holder holder = CURRENT.get();
    RegexBudget budget = new RegexBudget(limit.toNanos(), holder, holder.open);
    holder.open = budget;
    return budget;
  }

  /** The budget open on this thread, or a budget of {@code limit} for one match if none is. */
  static RegexBudget currentOr(long limitNanos) {
    RegexBudget budget = CURRENT.get().open;
    return budget != null ? budget : new RegexBudget(limitNanos, null, null);
  }

  /** The limit, for messages. */
  public Duration limit() {
    return Duration.ofNanos(limitNanos);
  }

  /** Says that a budget of {@code limit} was spent and how to raise it. */
  public static String spentMessage(Duration limit) {
    String amount =
        limit.toNanos() % 1_000_000 == 0
            ? limit.toMillis() + " ms"
            : String.format(Locale.ROOT, "%.3f ms", limit.toNanos() / 1e6);
    return "regular expressions took more than "
        + amount
        + " in total on this value, its time budget (SchemaLimits.maxRegexTime; raise it for"
        + " sources you trust); validation stopped";
  }

  /**
   * Whether a match was abandoned because the budget ran out; the answer of whatever asked is then
   * incomplete.
   */
  public boolean tripped() {
    return tripped;
  }

  boolean spent() {
    return spentNanos > limitNanos;
  }

  /** Records that a match was abandoned (or refused) for want of budget. */
  void trip() {
    tripped = true;
  }

  /** {@code value} as the matcher's input, charging its reads to this budget. */
  Metered meter(String value) {
    Metered input = new Metered(value);
    if (timing) {
      input.startTiming(System.nanoTime());
    }
    return input;
  }

  /** Charges the rest of a finished (or abandoned) match. */
  void settle(Metered input) {
    if (input.timed) {
      spentNanos += System.nanoTime() - input.since;
    }
  }

  /** Every {@value #CHECK_EVERY} characters read by the matches of this budget. */
  private void checkpoint(Metered input) {
    if (!timing) {
      if (reads >= UNTIMED_READS) {
        timing = true;
        input.startTiming(System.nanoTime());
      }
      return;
    }
    long now = System.nanoTime();
    if (input.timed) {
      spentNanos += now - input.since;
    }
    input.startTiming(now);
    if (spent()) {
      throw new Spent();
    }
  }

  @Override
  public void close() {
    if (holder != null) {
      holder.open = previous;
    }
  }

  /** A string whose reads are charged to the budget; only the matcher sees it. */
  final class Metered implements CharSequence {
    private final String value;

    /** Whether this match is timed, and up to when it has been charged. */
    private boolean timed;

    private long since;

    private Metered(String value) {
      this.value = value;
    }

    private void startTiming(long now) {
      timed = true;
      since = now;
    }

    @Override
    public char charAt(int index) {
      if ((++reads & (CHECK_EVERY - 1)) == 0) {
        checkpoint(this);
      }
      return value.charAt(index);
    }

    @Override
    public int length() {
      return value.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return value.subSequence(start, end);
    }

    @Override
    public String toString() {
      return value;
    }
  }

  /** Thrown out of the matcher when the budget is spent; cheap, it carries no stack trace. */
  static final class Spent extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Spent() {
      super(null, null, false, false);
    }
  }
}
