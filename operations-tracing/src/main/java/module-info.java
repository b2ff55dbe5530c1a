/**
 * operations for Java, tracing: an {@link dev.alkdev.operations.OperationInterceptor} that makes an
 * OpenTelemetry span per call and carries the W3C trace context across every hop in the call's
 * {@link dev.alkdev.operations.CallMetadata}.
 */
module dev.alkdev.operations.tracing {
  requires transitive dev.alkdev.operations.core;
  requires transitive io.opentelemetry.api;
  requires io.opentelemetry.context;
  requires org.slf4j;

  exports dev.alkdev.operations.tracing;
}
