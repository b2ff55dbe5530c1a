package dev.alkdev.operations.typed;

import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import java.time.Duration;

/**
 * What a typed client's calls carry when the method is not given a context: the client's identity,
 * timeout and metadata. A timeout is a fresh deadline per call, never one fixed when the client was
 * built.
 */
record ClientDefaults(Identity identity, Duration timeout, CallMetadata metadata) {
  private static final ClientDefaults NONE =
      new ClientDefaults(Identity.anonymous(), null, CallMetadata.empty());

  static ClientDefaults none() {
    return NONE;
  }

  OperationContext freshContext() {
    if (this == NONE) {
      return OperationContext.create();
    }
    OperationContext.Builder builder =
        OperationContext.builder().identity(identity).metadata(metadata);
    if (timeout != null) {
      builder.deadline(Deadline.after(timeout));
    }
    return builder.build();
  }

  /**
   * The context of a call made for {@code parent}: its child (same identity, deadline, signal and
   * metadata), with the client's timeout when that ends sooner.
   */
  OperationContext childOf(OperationContext parent) {
    OperationContext child = parent.child();
    if (timeout == null) {
      return child;
    }
    Deadline own = Deadline.after(timeout);
    Deadline deadline = child.deadline().map(own::min).orElse(own);
    return child.toBuilder().deadline(deadline).build();
  }
}
