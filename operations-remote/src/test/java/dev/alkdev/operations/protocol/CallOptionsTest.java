package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallOptionsTest {
  @Test
  void theDefaultsLeaveEveryOptionalValueAbsent() {
    CallOptions defaults = CallOptions.defaults();

    assertThat(defaults.deadline()).isEmpty();
    assertThat(defaults.parentRequestId()).isEmpty();
    assertThat(defaults.cancellation()).isEmpty();
    assertThat(defaults.identity()).isEqualTo(Identity.anonymous());
  }

  @Test
  void withMethodsSetOneValueAndLeaveTheOriginalAsItWas() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(5));
    Cancellation signal = Cancellation.create();

    CallOptions options =
        CallOptions.defaults()
            .withDeadline(deadline)
            .withIdentity(Identity.of("alice", "read"))
            .withParentRequestId("parent")
            .withCancellation(signal);

    assertThat(options.deadline()).contains(deadline);
    assertThat(options.identity().subject()).isEqualTo("alice");
    assertThat(options.parentRequestId()).contains("parent");
    assertThat(options.cancellation()).containsSame(signal);
    assertThat(CallOptions.defaults().deadline()).isEmpty();
    assertThat(options)
        .isEqualTo(
            CallOptions.defaults()
                .withDeadline(deadline)
                .withIdentity(Identity.of("alice", "read"))
                .withParentRequestId("parent")
                .withCancellation(signal));
  }

  @Test
  void aContextGivesItsIdentityDeadlineRequestAndSignal() {
    OperationContext context =
        OperationContext.builder()
            .identity(Identity.of("bob"))
            .timeout(Duration.ofSeconds(3))
            .build();

    CallOptions options = CallOptions.of(context);

    assertThat(options.identity()).isEqualTo(context.identity());
    assertThat(options.deadline()).isEqualTo(context.deadline());
    assertThat(options.parentRequestId()).contains(context.requestId());
    assertThat(options.cancellation()).containsSame(context.cancellation());
    assertThat(CallOptions.of(OperationContext.create()).deadline()).isEmpty();
  }

  @Test
  void nothingIsSetToNull() {
    CallOptions defaults = CallOptions.defaults();

    assertThatThrownBy(() -> defaults.withDeadline(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("leave it unset");
    assertThatThrownBy(() -> defaults.withParentRequestId(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("leave it unset");
    assertThatThrownBy(() -> defaults.withCancellation(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("leave it unset");
    assertThatThrownBy(() -> defaults.withIdentity(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void aNodeRoutesTheRequestToThatNodeOnly() {
    CallOptions options = CallOptions.defaults().withNode("node-1");
    assertThat(options.node()).contains("node-1");
    assertThat(CallOptions.defaults().node()).isEmpty();
    assertThat(options).isNotEqualTo(CallOptions.defaults());
    assertThat(options.withIdentity(Identity.of("bob")).node()).contains("node-1");
    assertThat(options.toString()).contains("node=node-1");
    assertThatThrownBy(() -> CallOptions.defaults().withNode("a.b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("node id");
    assertThatThrownBy(() -> CallOptions.defaults().withNode(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void nodeIdsAreOneToSixtyFourLettersDigitsUnderscoresOrDashes() {
    String longest = "a".repeat(64);
    for (String ok : List.of("a", "Z9", "node_1-B", "-", "_", longest)) {
      assertThat(CallOptions.defaults().withNode(ok).node()).contains(ok);
    }
    for (String bad :
        List.of("", longest + "a", "a.b", "a b", "a/b", "a*", "a>", "é", "a\n", "ops.node")) {
      assertThatThrownBy(() -> CallOptions.defaults().withNode(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("node id");
    }
  }
}
