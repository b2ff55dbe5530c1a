package dev.alkdev.operations.metrics;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import java.util.Locale;

/**
 * How a call becomes an observation: its name and key values. The default, {@link #DEFAULT}:
 *
 * <ul>
 *   <li>name {@code operations.call}; contextual name the operation id;
 *   <li>low-cardinality keys (on metrics and spans): {@code operation} (the id, or {@code unknown}
 *       for an id that names no operation, so a caller cannot mint tags), {@code operation.type}
 *       ({@code query}, {@code mutation}, {@code subscription} or {@code unknown}), {@code origin}
 *       ({@code in_process} for calls the application makes, {@code served} for calls a server or
 *       transport serves) and {@code outcome} ({@code ok} or the error code, e.g. {@code
 *       invalid_input});
 *   <li>high-cardinality keys (on spans only): {@code identity} (the caller's subject), {@code
 *       request.id} and, for subscriptions, {@code items}.
 * </ul>
 *
 * Implement this interface (or wrap the default) and pass it to {@link
 * OperationObservations#create(io.micrometer.observation.ObservationRegistry,
 * OperationObservationConvention)} to change them.
 */
public interface OperationObservationConvention
    extends ObservationConvention<OperationObservationContext> {

  /** The name of every call's observation. */
  String NAME = "operations.call";

  /** The convention described above. */
  OperationObservationConvention DEFAULT = new OperationObservationConvention() {};

  @Override
  default String getName() {
    return NAME;
  }

  @Override
  default String getContextualName(OperationObservationContext context) {
    return context.spec().isPresent() ? context.invocation().operationId() : "unknown operation";
  }

  @Override
  default KeyValues getLowCardinalityKeyValues(OperationObservationContext context) {
    return KeyValues.of(
        "operation",
        context.spec().isPresent()
            ? context.invocation().operationId()
            : OperationMetrics.UNKNOWN_OPERATION,
        "operation.type",
        context.spec().map(spec -> lower(spec.type().name())).orElse("unknown"),
        "origin",
        lower(context.invocation().origin().name()),
        "outcome",
        context.failure().map(error -> lower(error.code().name())).orElse("ok"));
  }

  @Override
  default KeyValues getHighCardinalityKeyValues(OperationObservationContext context) {
    KeyValues values =
        KeyValues.of(
            "identity", context.invocation().context().identity().subject(),
            "request.id", context.invocation().context().requestId());
    return context.invocation().stream()
        ? values.and("items", Long.toString(context.items()))
        : values;
  }

  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof OperationObservationContext;
  }

  private static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
