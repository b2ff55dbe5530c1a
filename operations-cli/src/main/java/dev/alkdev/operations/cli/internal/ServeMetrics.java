package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.metrics.OperationMetrics;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.serving.OperationServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.HashMap;
import java.util.Map;

/**
 * The metrics of one {@code ops serve} with {@code --http}: every served call (whichever listener
 * it came through), the serving pipeline, and each transport served on, scraped in Prometheus' text
 * format at {@code /metrics} of every HTTP listener.
 */
final class ServeMetrics {
  /** Prometheus' text exposition format, what {@link PrometheusMeterRegistry#scrape()} writes. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  static final String PATH = "/metrics";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, Integer> transportsOfKind = new HashMap<>();

  OperationInterceptor interceptor() {
    return OperationMetrics.create(registry);
  }

  void bindServer(OperationServer server) {
    OperationMetrics.bindServingStats(registry, "ops", server::stats);
  }

  /**
   * Binds a transport, tagged with its kind ({@code nats}, {@code redis}, {@code ws}); a second one
   * of the same kind is {@code nats-2}, and so on, so that each keeps its own counters.
   */
  void bindTransport(String kind, PubSub pubsub) {
    int n = transportsOfKind.merge(kind, 1, Integer::sum);
    OperationMetrics.bindTransport(registry, n == 1 ? kind : kind + "-" + n, pubsub);
  }

  String scrape() {
    return registry.scrape();
  }
}
