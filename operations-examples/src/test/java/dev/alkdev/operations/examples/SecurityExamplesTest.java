package dev.alkdev.operations.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.discovery.RemoteNode;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** docs/security.md's example runs: both nodes listed, the signed one verified and called. */
class SecurityExamplesTest {
  @Test
  void theSignedNodeIsVerifiedAndTheUnsignedOneIsNot() throws Exception {
    assertThat(SecurityExamples.run())
        .extracting(RemoteNode::identity, RemoteNode::verified)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(Optional.of("billing"), true),
            org.assertj.core.groups.Tuple.tuple(Optional.empty(), false));
  }
}
