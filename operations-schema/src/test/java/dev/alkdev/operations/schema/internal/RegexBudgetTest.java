package dev.alkdev.operations.schema.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How matches find their budget: nesting, threads, and matches made with no budget open. */
class RegexBudgetTest {
  /** Backtracks for milliseconds; a few of these spend a 1 ms budget. */
  private static final BoundedPattern SLOW =
      BoundedPattern.compile("^(a+){1,50}$", Duration.ofMillis(1));

  private static final String INPUT = "a".repeat(18) + "!";

  private static final BoundedPattern QUICK = BoundedPattern.compile("^a", Duration.ofMillis(1));

  @Test
  void aSpentBudgetRefusesEvenQuickMatchesUntilItIsClosed() {
    try (RegexBudget budget = RegexBudget.open(Duration.ofMillis(1))) {
      spend();
      assertThat(budget.tripped()).isTrue();
      assertThatThrownBy(() -> QUICK.find("abc"))
          .isInstanceOf(BoundedPattern.RegexLimitException.class)
          .hasMessageContaining("1 ms in total")
          .hasMessageContaining("'^a'");
    }
    try (RegexBudget fresh = RegexBudget.open(Duration.ofMillis(1))) {
      assertThat(QUICK.find("abc")).isTrue();
      assertThat(fresh.tripped()).isFalse();
    }
  }

  @Test
  void aNestedBudgetIsItsOwnAndClosingItPutsTheOuterOneBack() {
    try (RegexBudget outer = RegexBudget.open(Duration.ofMinutes(1))) {
      try (RegexBudget inner = RegexBudget.open(Duration.ofMillis(1))) {
        spend();
        assertThat(inner.tripped()).isTrue();
      }
      // The outer budget has plenty left and was not charged for the inner matches' failure.
      assertThat(SLOW.find(INPUT)).isFalse();
      assertThat(outer.tripped()).isFalse();
    }
  }

  @Test
  void aBudgetIsSeenOnlyByTheThreadThatOpenedIt() throws Exception {
    try (RegexBudget budget = RegexBudget.open(Duration.ofMillis(1))) {
      spend();
      // Another thread has no budget open: its match is bounded on its own and succeeds.
      boolean found =
          CompletableFuture.supplyAsync(() -> QUICK.find("abc")).get(5, TimeUnit.SECONDS);
      assertThat(found).isTrue();
      assertThat(budget.tripped()).isTrue();
    }
  }

  @Test
  void withNoBudgetOpenEachMatchIsBoundedByItsOwnLimit() {
    // Patterns used outside a validation or a cast (a meta-schema check) still cannot hang.
    assertThatThrownBy(
            () ->
                BoundedPattern.compile("^(a+){1,50}$", Duration.ofMillis(5))
                    .find("a".repeat(30) + "!"))
        .isInstanceOf(BoundedPattern.RegexLimitException.class)
        .hasMessageContaining("5 ms in total");
    assertThat(QUICK.find("abc")).isTrue();
  }

  /** Runs slow matches on the open budget until one is stopped. */
  private static void spend() {
    assertThatThrownBy(
            () -> {
              for (int i = 0; i < 10_000; i++) {
                SLOW.find(INPUT);
              }
            })
        .isInstanceOf(BoundedPattern.RegexLimitException.class)
        .hasMessageContaining("SchemaLimits.maxRegexTime");
  }
}
