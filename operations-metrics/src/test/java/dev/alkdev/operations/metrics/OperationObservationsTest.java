package dev.alkdev.operations.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each call an observation with the convention's keys, stopped when the call ends. */
class OperationObservationsTest {
  final TestObservationRegistry observations = TestObservationRegistry.create();
  final OperationRegistry registry =
      OperationRegistry.builder().interceptor(OperationObservations.create(observations)).build();

  @AfterEach
  void close() {
    registry.close();
  }

  @Test
  void aCallIsAnObservationWithTheConventionsKeys() throws Exception {
    OperationMetricsTest.register(registry);
    OperationContext context =
        OperationContext.builder().identity(Identity.of("ada", "read")).build();
    registry.execute("demo.echo", Map.of("x", 1), context).get(5, TimeUnit.SECONDS);

    TestObservationRegistryAssert.assertThat(observations)
        .hasSingleObservationThat()
        .hasNameEqualTo(OperationObservationConvention.NAME)
        .hasContextualNameEqualTo("demo.echo")
        .hasBeenStarted()
        .hasBeenStopped()
        .hasLowCardinalityKeyValue("operation", "demo.echo")
        .hasLowCardinalityKeyValue("operation.type", "query")
        .hasLowCardinalityKeyValue("origin", "in_process")
        .hasLowCardinalityKeyValue("outcome", "ok")
        .hasHighCardinalityKeyValue("identity", "ada")
        .hasHighCardinalityKeyValue("request.id", context.requestId());
  }

  @Test
  void aFailedCallCarriesItsCodeAndError() {
    OperationMetricsTest.register(registry);
    assertThatThrownBy(
            () -> registry.execute("demo.typed", "not a number").get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
    TestObservationRegistryAssert.assertThat(observations)
        .hasSingleObservationThat()
        .hasLowCardinalityKeyValue("outcome", "invalid_input")
        .hasError();
  }

  @Test
  void anUnknownIdMintsNoTag() {
    assertThatThrownBy(
            () ->
                registry.execute("no.such-" + System.nanoTime(), Map.of()).get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
    TestObservationRegistryAssert.assertThat(observations)
        .hasSingleObservationThat()
        .hasLowCardinalityKeyValue("operation", OperationMetrics.UNKNOWN_OPERATION)
        .hasLowCardinalityKeyValue("operation.type", "unknown")
        .hasLowCardinalityKeyValue("outcome", "operation_not_found");
  }

  @Test
  void aSubscriptionIsObservedUntilItsStreamEndsWithItsItems() throws Exception {
    OperationMetricsTest.register(registry);
    List<Object> items = new CopyOnWriteArrayList<>();
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    registry
        .subscribe("demo.count", Map.of())
        .subscribe(
            new java.util.concurrent.Flow.Subscriber<
                dev.alkdev.operations.envelope.ResponseEnvelope<
                    tools.jackson.databind.JsonNode>>() {
              @Override
              public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(
                  dev.alkdev.operations.envelope.ResponseEnvelope<tools.jackson.databind.JsonNode>
                      item) {
                items.add(item);
              }

              @Override
              public void onError(Throwable error) {
                done.countDown();
              }

              @Override
              public void onComplete() {
                done.countDown();
              }
            });
    assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(items).hasSize(3);
    TestObservationRegistryAssert.assertThat(observations)
        .hasSingleObservationThat()
        .hasBeenStopped()
        .hasLowCardinalityKeyValue("operation.type", "subscription")
        .hasHighCardinalityKeyValue("items", "3");
  }

  @Test
  void theObservationIsInScopeWhileTheCallIsHandedOn() throws Exception {
    AtomicReference<Observation> seen = new AtomicReference<>();
    OperationRegistry outer =
        OperationRegistry.builder()
            .interceptor(OperationObservations.create(observations))
            .interceptor(
                (invocation, chain) -> {
                  seen.set(observations.getCurrentObservation());
                  chain.proceed(invocation.context());
                })
            .build();
    try {
      outer.register(
          dev.alkdev.operations.OperationSpec.builder("demo", "scoped").build(), (in, ctx) -> in);
      outer.execute("demo.scoped", Map.of()).get(5, TimeUnit.SECONDS);
      assertThat(seen.get()).isNotNull();
      assertThat(seen.get().getContext()).isInstanceOf(OperationObservationContext.class);
    } finally {
      outer.close();
    }
  }

  @Test
  void aConventionOfTheApplicationsOwnReplacesTheDefault() throws Exception {
    List<String> names = new CopyOnWriteArrayList<>();
    observations
        .observationConfig()
        .observationHandler(
            new ObservationHandler<Observation.Context>() {
              @Override
              public void onStop(Observation.Context context) {
                names.add(context.getName() + " " + context.getLowCardinalityKeyValues());
              }

              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }
            });
    OperationObservationConvention custom =
        new OperationObservationConvention() {
          @Override
          public String getName() {
            return "shop.operation";
          }

          @Override
          public KeyValues getLowCardinalityKeyValues(OperationObservationContext context) {
            return KeyValues.of(KeyValue.of("op", context.invocation().operationId()));
          }
        };
    try (OperationRegistry own =
        OperationRegistry.builder()
            .interceptor(OperationObservations.create(observations, custom))
            .build()) {
      OperationMetricsTest.register(own);
      own.execute("demo.echo", Map.of()).get(5, TimeUnit.SECONDS);
    }
    assertThat(names).containsExactly("shop.operation [keyValue(op=demo.echo)]");
  }
}
