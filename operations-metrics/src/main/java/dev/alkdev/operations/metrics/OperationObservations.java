package dev.alkdev.operations.metrics;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallObserver;
import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * An interceptor that makes every call a Micrometer {@link Observation}, so whatever handlers the
 * {@link ObservationRegistry} has (timers, spans through a tracing bridge, logs) see each call with
 * the keys of an {@link OperationObservationConvention}. The observation starts when the call
 * starts and stops when it ends (a subscription: when its stream ends); it is in scope on the
 * calling thread while the call is handed on, so a tracing bridge parents the spans of what the
 * call does there.
 *
 * <pre>{@code
 * OperationRegistry registry =
 *     OperationRegistry.builder().interceptor(OperationObservations.create(observations)).build();
 * }</pre>
 *
 * With a no-op registry it costs one context object per call.
 */
public final class OperationObservations implements OperationInterceptor {
  private final ObservationRegistry registry;
  private final OperationObservationConvention convention;

  private OperationObservations(
      ObservationRegistry registry, OperationObservationConvention convention) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.convention = Objects.requireNonNull(convention, "convention");
  }

  /** Observations with the {@link OperationObservationConvention#DEFAULT default convention}. */
  public static OperationObservations create(ObservationRegistry registry) {
    return new OperationObservations(registry, OperationObservationConvention.DEFAULT);
  }

  /**
   * Observations with {@code convention}; a convention registered on the {@code registry}'s
   * configuration for {@link OperationObservationContext} still takes precedence, as Micrometer
   * does for every instrumentation.
   */
  public static OperationObservations create(
      ObservationRegistry registry, OperationObservationConvention convention) {
    return new OperationObservations(registry, convention);
  }

  @Override
  public void intercept(Invocation invocation, Chain chain) {
    OperationObservationContext context = new OperationObservationContext(invocation);
    Observation observation =
        Observation.createNotStarted(null, convention, () -> context, registry).start();
    try (Observation.Scope scope = observation.openScope()) {
      chain.proceed(invocation.context(), new Ended(observation, context));
    }
  }

  /** Stops the observation when the call ends, with its outcome. */
  private static final class Ended implements CallObserver {
    private final Observation observation;
    private final OperationObservationContext context;

    Ended(Observation observation, OperationObservationContext context) {
      this.observation = observation;
      this.context = context;
    }

    @Override
    public void onItem(ResponseEnvelope<JsonNode> item) {
      context.item();
    }

    @Override
    public void onEnd(Optional<CallError> failure) {
      failure.ifPresent(
          error -> {
            context.failed(error);
            observation.error(error);
          });
      observation.stop();
    }
  }
}
