package dev.alkdev.operations.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.examples.TypedClientExamples.Quote;
import org.junit.jupiter.api.Test;

/** The typed-client examples of docs/typed-clients.md run and give what the page says. */
class TypedClientExamplesTest {
  @Test
  void local() {
    assertThat(TypedClientExamples.local()).isEqualTo(new Quote("tea", 500));
  }

  @Test
  void remote() throws Exception {
    assertThat(TypedClientExamples.remote())
        .containsExactly(new Quote("tea", 500), new Quote("milk", 250));
  }

  @Test
  void nested() {
    assertThat(TypedClientExamples.nested()).isEqualTo(new Quote("tea", 349));
  }
}
