package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a remote call is made: by when it must finish, who makes it, which call it belongs to, the
 * signal that cancels it, and the metadata it carries.
 *
 * @param deadline when the call fails with DEADLINE_EXCEEDED; empty for the map's default timeout
 *     (unary calls) or none (streams)
 * @param identity who calls; serving sides believe it only on trusted transports
 * @param parentRequestId the call this one is made for
 * @param cancellation cancels the call (and sends {@code call.aborted})
 * @param metadata sent as the request's {@code meta} (trace context, baggage)
 */
public record CallOptions(
    Optional<Deadline> deadline,
    Identity identity,
    Optional<String> parentRequestId,
    Optional<Cancellation> cancellation,
    CallMetadata metadata) {

  private static final CallOptions DEFAULTS =
      new CallOptions(
          Optional.empty(),
          Identity.anonymous(),
          Optional.empty(),
          Optional.empty(),
          CallMetadata.empty());

  public CallOptions {
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(parentRequestId, "parentRequestId");
    Objects.requireNonNull(cancellation, "cancellation");
    Objects.requireNonNull(metadata, "metadata");
  }

  /** Anonymous, no parent, the default timeout. */
  public static CallOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Options for a call made on behalf of {@code context}: its identity, deadline, signal and
   * metadata (so trace context crosses the hop).
   */
  public static CallOptions of(OperationContext context) {
    return new CallOptions(
        context.deadline(),
        context.identity(),
        Optional.of(context.requestId()),
        Optional.of(context.cancellation()),
        context.metadata());
  }

  public CallOptions withTimeout(Duration timeout) {
    return withDeadline(Deadline.after(timeout));
  }

  public CallOptions withDeadline(Deadline deadline) {
    return new CallOptions(
        Optional.of(deadline), identity, parentRequestId, cancellation, metadata);
  }

  public CallOptions withIdentity(Identity identity) {
    return new CallOptions(deadline, identity, parentRequestId, cancellation, metadata);
  }

  public CallOptions withParentRequestId(String parentRequestId) {
    return new CallOptions(
        deadline, identity, Optional.of(parentRequestId), cancellation, metadata);
  }

  /** Sends {@code metadata} as the request's {@code meta}. */
  public CallOptions withMetadata(CallMetadata metadata) {
    return new CallOptions(deadline, identity, parentRequestId, cancellation, metadata);
  }

  public CallOptions withCancellation(Cancellation cancellation) {
    return new CallOptions(
        deadline, identity, parentRequestId, Optional.of(cancellation), metadata);
  }
}
