package dev.alkdev.operations.schema.internal.cast;

/**
 * The steps one cast may spend on optional work: checking values against branches and trying
 * further branches. When it runs out, casting goes on along the best-ranked branch only, so a
 * schema whose unions nest deeply costs time linear in the value, not exponential.
 */
final class Budget {
  private long left;

  Budget(long steps) {
    this.left = steps;
  }

  /** Spends one step; false once the budget is used up. */
  boolean spend() {
    return --left >= 0;
  }

  /** Spends {@code steps} steps; false once the budget is used up. */
  boolean spend(long steps) {
    left -= steps;
    return left >= 0;
  }

  boolean exhausted() {
    return left < 0;
  }
}
