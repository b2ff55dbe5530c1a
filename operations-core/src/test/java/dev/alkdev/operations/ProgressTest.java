package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProgressTest {
  @Test
  void readsAsALineForAPerson() {
    assertThat(new Progress(3, Optional.of(10.0), Optional.of("indexing")))
        .hasToString("3/10: indexing");
    assertThat(new Progress(2.5, Optional.empty(), Optional.empty())).hasToString("2.5");
    assertThat(new Progress(0.25, Optional.of(1.0), Optional.empty())).hasToString("0.25/1");
  }

  @Test
  void aListenerTravelsInTheCallsContextAndItsChildren() {
    StringBuilder heard = new StringBuilder();
    OperationContext context =
        OperationContext.builder().attribute(Progress.LISTENER, p -> heard.append(p)).build();
    context
        .child()
        .attribute(Progress.LISTENER)
        .orElseThrow()
        .accept(new Progress(1, Optional.empty(), Optional.of("x")));
    assertThat(heard).hasToString("1: x");
  }
}
