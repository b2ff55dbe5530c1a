package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.remote.internal.NodeIds;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a remote call is made: by when it must finish, who makes it, which call it belongs to, the
 * signal that cancels it, and the metadata it carries. Immutable: start from {@link #defaults()} or
 * {@link #of(OperationContext)} and derive changed copies with the {@code with} methods. As in
 * {@link OperationContext.Builder}, what is optional is absent until it is set, reads as an {@link
 * Optional}, and is never set to {@code null}.
 */
public final class CallOptions {
  private static final CallOptions DEFAULTS =
      new CallOptions(null, Identity.anonymous(), null, null, CallMetadata.empty(), null);

  private final Deadline deadline;
  private final Identity identity;
  private final String parentRequestId;
  private final Cancellation cancellation;
  private final CallMetadata metadata;
  private final String node;

  private CallOptions(
      Deadline deadline,
      Identity identity,
      String parentRequestId,
      Cancellation cancellation,
      CallMetadata metadata,
      String node) {
    this.deadline = deadline;
    this.identity = identity;
    this.parentRequestId = parentRequestId;
    this.cancellation = cancellation;
    this.metadata = metadata;
    this.node = node;
  }

  /** Anonymous, no parent, no signal, no metadata, the map's default timeout. */
  public static CallOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Options for a call made on behalf of {@code context}: its identity, deadline, signal and
   * metadata (so trace context travels on).
   */
  public static CallOptions of(OperationContext context) {
    Objects.requireNonNull(context, "context");
    return new CallOptions(
        context.deadline().orElse(null),
        context.identity(),
        context.requestId(),
        context.cancellation(),
        context.metadata(),
        null);
  }

  /**
   * Options for the call whose own context is {@code context} (what an {@link
   * dev.alkdev.operations.OperationCaller} is given): its parent, identity, deadline, signal and
   * metadata. {@link #of} is for a call made on behalf of {@code context}, its child.
   */
  public static CallOptions ofCall(OperationContext context) {
    Objects.requireNonNull(context, "context");
    return new CallOptions(
        context.deadline().orElse(null),
        context.identity(),
        context.parentRequestId().orElse(null),
        context.cancellation(),
        context.metadata(),
        null);
  }

  /**
   * When the call fails with DEADLINE_EXCEEDED; empty for the map's default timeout (unary calls)
   * or none (streams).
   */
  public Optional<Deadline> deadline() {
    return Optional.ofNullable(deadline);
  }

  /** Who calls; serving sides believe it only on trusted transports. */
  public Identity identity() {
    return identity;
  }

  /** The call this one is made for. */
  public Optional<String> parentRequestId() {
    return Optional.ofNullable(parentRequestId);
  }

  /** The signal that cancels the call (and sends {@code call.aborted}). */
  public Optional<Cancellation> cancellation() {
    return Optional.ofNullable(cancellation);
  }

  /** Sent as the request's {@code meta} (trace context, baggage); empty when none. */
  public CallMetadata metadata() {
    return metadata;
  }

  /**
   * The serving node the request is sent to ({@code ops.node.<nodeId>.req.<operationId>}); empty
   * for whichever server of the shared queue group takes it. A discovery-aware caller ({@code
   * dev.alkdev.operations.discovery.RemoteCatalog}) sets it.
   */
  public Optional<String> node() {
    return Optional.ofNullable(node);
  }

  /** Sends the request to node {@code nodeId} only (a node id has no dots). */
  public CallOptions withNode(String nodeId) {
    Objects.requireNonNull(nodeId, "nodeId (leave it unset for the shared queue group)");
    NodeIds.require(nodeId);
    return new CallOptions(deadline, identity, parentRequestId, cancellation, metadata, nodeId);
  }

  /** The deadline {@code timeout} from now. */
  public CallOptions withTimeout(Duration timeout) {
    return withDeadline(Deadline.after(timeout));
  }

  public CallOptions withDeadline(Deadline deadline) {
    Objects.requireNonNull(deadline, "deadline (leave it unset for the default timeout)");
    return new CallOptions(deadline, identity, parentRequestId, cancellation, metadata, node);
  }

  public CallOptions withIdentity(Identity identity) {
    Objects.requireNonNull(identity, "identity");
    return new CallOptions(deadline, identity, parentRequestId, cancellation, metadata, node);
  }

  public CallOptions withParentRequestId(String parentRequestId) {
    Objects.requireNonNull(
        parentRequestId, "parentRequestId (leave it unset for a call without a parent)");
    return new CallOptions(deadline, identity, parentRequestId, cancellation, metadata, node);
  }

  public CallOptions withCancellation(Cancellation cancellation) {
    Objects.requireNonNull(cancellation, "cancellation (leave it unset for a call without one)");
    return new CallOptions(deadline, identity, parentRequestId, cancellation, metadata, node);
  }

  /** Sends {@code metadata} as the request's {@code meta} ({@link CallMetadata#empty()}: none). */
  public CallOptions withMetadata(CallMetadata metadata) {
    Objects.requireNonNull(metadata, "metadata (use CallMetadata.empty() for none)");
    return new CallOptions(deadline, identity, parentRequestId, cancellation, metadata, node);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CallOptions other
        && Objects.equals(deadline, other.deadline)
        && identity.equals(other.identity)
        && Objects.equals(parentRequestId, other.parentRequestId)
        && cancellation == other.cancellation
        && metadata.equals(other.metadata)
        && Objects.equals(node, other.node);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        deadline, identity, parentRequestId, System.identityHashCode(cancellation), metadata, node);
  }

  @Override
  public String toString() {
    return "CallOptions[identity="
        + identity.subject()
        + (deadline == null ? "" : ", " + deadline)
        + (parentRequestId == null ? "" : ", parent=" + parentRequestId)
        + (cancellation == null ? "" : ", cancellable")
        + (metadata.asMap().isEmpty() ? "" : ", meta=" + metadata.asMap().keySet())
        + (node == null ? "" : ", node=" + node)
        + "]";
  }
}
