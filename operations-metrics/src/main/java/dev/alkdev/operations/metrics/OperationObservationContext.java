package dev.alkdev.operations.metrics;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.OperationInterceptor.Invocation;
import dev.alkdev.operations.OperationSpec;
import io.micrometer.observation.Observation;
import java.util.Optional;

/**
 * What an {@link OperationObservations} observation knows of one call, for an {@link
 * OperationObservationConvention} to turn into a name and key values.
 */
public final class OperationObservationContext extends Observation.Context {
  private final Invocation invocation;
  private volatile CallError failure;
  private volatile long items;

  OperationObservationContext(Invocation invocation) {
    this.invocation = invocation;
  }

  /** The call: its operation id, spec (absent for an unknown operation), context and origin. */
  public Invocation invocation() {
    return invocation;
  }

  /** The spec of the called operation, when it is known. */
  public Optional<OperationSpec> spec() {
    return invocation.spec();
  }

  /** How the call ended: empty while it runs and when it succeeded. */
  public Optional<CallError> failure() {
    return Optional.ofNullable(failure);
  }

  /** The items a subscription delivered so far (0 for a query or mutation). */
  public long items() {
    return items;
  }

  void failed(CallError error) {
    this.failure = error;
  }

  void item() {
    items++; // one subscriber thread delivers a stream's items in order
  }
}
