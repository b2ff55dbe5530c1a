/**
 * operations for Java, metrics: an {@link dev.alkdev.operations.OperationInterceptor} that records
 * every call on a Micrometer {@code MeterRegistry}, and gauges for the serving and call-protocol
 * statistics.
 */
module dev.alkdev.operations.metrics {
  requires transitive dev.alkdev.operations.remote;
  requires transitive micrometer.core;
  requires transitive micrometer.observation;
  requires micrometer.commons;

  exports dev.alkdev.operations.metrics;
}
