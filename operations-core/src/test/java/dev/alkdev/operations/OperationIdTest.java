package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link OperationSpec#isValidId}'s loop says exactly what the id's regexes say (D75). */
class OperationIdTest {
  @Test
  void theLoopAgreesWithTheRegexesOnEdgeCases() {
    List<String> ids =
        List.of(
            "a.b",
            "ns.op",
            "ns.op.sub",
            "ns.op..sub",
            "ns.op.",
            "ns..op",
            ".op",
            "ns.",
            "ns",
            "",
            ".",
            "a-b_c.D-9_x",
            "ns.op\\n",
            "ns.op\n",
            "ns\n.op",
            "ns.o p",
            "ns.é",
            "n*.op",
            "a".repeat(64) + ".op",
            "a".repeat(65) + ".op",
            "ns." + "b".repeat(128),
            "ns." + "b".repeat(129),
            "ns." + "b".repeat(63) + "." + "c".repeat(64),
            "ns." + "b".repeat(64) + "." + "c".repeat(64));
    for (String id : ids) {
      assertThat(OperationSpec.isValidId(id))
          .as(id)
          .isEqualTo(OperationSpec.isValidIdByPattern(id));
    }
    assertThat(OperationSpec.isValidId("ns.op.sub")).isTrue();
    assertThat(OperationSpec.isValidId("ns.op\n")).isFalse();
  }

  @Test
  void theLoopAgreesWithTheRegexesOnRandomIds() {
    Random random = new Random(76);
    String alphabet = "ab_-.Z9 \n\u00e9*";
    for (int i = 0; i < 20_000; i++) {
      int length = random.nextInt(i % 100 == 0 ? 200 : 12);
      StringBuilder id = new StringBuilder();
      for (int k = 0; k < length; k++) {
        id.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String text = id.toString();
      assertThat(OperationSpec.isValidId(text))
          .as(text)
          .isEqualTo(OperationSpec.isValidIdByPattern(text));
    }
  }
}
