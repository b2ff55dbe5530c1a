package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.metrics.OperationMetrics;
import dev.alkdev.operations.serving.OperationServer;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/** Binds the serving pipeline's statistics as gauges ({@code server=operations}) once it exists. */
final class OperationsServingGauges implements SmartInitializingSingleton {
  private final MeterRegistry meters;
  private final ObjectProvider<OperationServer> server;

  OperationsServingGauges(MeterRegistry meters, ObjectProvider<OperationServer> server) {
    this.meters = meters;
    this.server = server;
  }

  @Override
  public void afterSingletonsInstantiated() {
    OperationServer pipeline = server.getObject();
    OperationMetrics.bindServingStats(meters, "operations", pipeline::stats);
  }
}
