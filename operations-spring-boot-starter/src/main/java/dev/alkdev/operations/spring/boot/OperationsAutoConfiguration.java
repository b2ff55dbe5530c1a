package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.metrics.OperationMetrics;
import dev.alkdev.operations.metrics.OperationObservationConvention;
import dev.alkdev.operations.metrics.OperationObservations;
import dev.alkdev.operations.serving.OperationServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * The registry, the serving pipeline, what fills the registry and what serves it, from the {@code
 * operations.*} properties. Every bean backs off when the application defines its own of the same
 * type; interceptor beans run around every call in their {@code @Order}.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"
    })
@ConditionalOnClass(OperationRegistry.class)
@ConditionalOnProperty(prefix = "operations", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(OperationsProperties.class)
public class OperationsAutoConfiguration {

  /** The registry, with every {@link OperationInterceptor} bean around its calls. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  OperationRegistry operationRegistry(ObjectProvider<OperationInterceptor> interceptors) {
    OperationRegistry.Builder builder = OperationRegistry.builder();
    interceptors.orderedStream().forEach(builder::interceptor);
    return builder.build();
  }

  /**
   * The serving pipeline every server and node shares, with the capacity of {@code
   * operations.serving}.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  OperationServer operationServer(OperationRegistry registry, OperationsProperties properties) {
    OperationsProperties.Serving serving = properties.getServing();
    OperationServer.Builder builder = OperationServer.builder(registry);
    Settings.apply(
        "operations.serving.max-concurrent-calls",
        serving.getMaxConcurrentCalls(),
        builder::maxConcurrentCalls);
    Settings.apply(
        "operations.serving.max-concurrent-streams",
        serving.getMaxConcurrentStreams(),
        builder::maxConcurrentStreams);
    Settings.apply(
        "operations.serving.max-calls-per-identity",
        serving.getMaxCallsPerIdentity(),
        builder::maxCallsPerIdentity);
    return builder.build();
  }

  @Bean
  @ConditionalOnMissingBean
  OperationsTransports operationsTransports(
      OperationsProperties properties, Environment environment) {
    return new OperationsTransports(properties, environment);
  }

  @Bean
  @ConditionalOnMissingBean
  OperationsLoader operationsLoader(
      ConfigurableListableBeanFactory beans,
      OperationRegistry registry,
      OperationsProperties properties,
      Environment environment,
      OperationsTransports transports) {
    return new OperationsLoader(beans, registry, properties, environment, transports);
  }

  @Bean
  @ConditionalOnMissingBean
  OperationsServing operationsServing(
      OperationServer server, OperationsProperties properties, OperationsTransports transports) {
    return new OperationsServing(server, properties, transports);
  }

  /** Every call timed on Boot's {@code MeterRegistry}, and the pipeline's capacity as gauges. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  @ConditionalOnBean(MeterRegistry.class)
  static class Metrics {
    /** Outermost, so it times every call, those an interceptor of the application refuses too. */
    @Bean
    @ConditionalOnMissingBean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    OperationMetrics operationMetrics(MeterRegistry meters) {
      return OperationMetrics.create(meters);
    }

    @Bean
    @ConditionalOnMissingBean
    OperationsServingGauges operationsServingGauges(
        MeterRegistry meters, ObjectProvider<OperationServer> server) {
      return new OperationsServingGauges(meters, server);
    }
  }

  /** Every call an observation, so Boot's tracing and observation handlers see it. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(ObservationRegistry.class)
  @ConditionalOnBean(ObservationRegistry.class)
  static class Observations {
    /** Right inside the metrics, so its span covers the application's interceptors. */
    @Bean
    @ConditionalOnMissingBean
    @Order(Ordered.HIGHEST_PRECEDENCE + 1)
    OperationObservations operationObservations(
        ObservationRegistry observations,
        ObjectProvider<OperationObservationConvention> convention) {
      return OperationObservations.create(
          observations, convention.getIfAvailable(() -> OperationObservationConvention.DEFAULT));
    }
  }

  /** Health: transports connected, nodes known, serving capacity. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "operationsHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("operations")
    OperationsHealthIndicator operationsHealthIndicator(
        OperationServer server,
        OperationsTransports transports,
        OperationsLoader loader,
        OperationsServing serving) {
      return new OperationsHealthIndicator(server, transports, loader, serving);
    }
  }

  /** The {@code operations} Actuator endpoint: every operation with its spec and statistics. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  static class Actuator {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    OperationsEndpoint operationsEndpoint(OperationRegistry registry, OperationServer server) {
      return new OperationsEndpoint(registry, server);
    }
  }

  /** Spring AI: the operations as tools, and (when asked) the application's tools as operations. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "dev.alkdev.operations.springai.OperationTools",
        "org.springframework.ai.tool.ToolCallbackProvider"
      })
  static class SpringAi {
    @Bean
    @ConditionalOnMissingBean(name = "operationTools")
    @ConditionalOnProperty(prefix = "operations.ai", name = "tools", matchIfMissing = true)
    org.springframework.ai.tool.ToolCallbackProvider operationTools(
        OperationRegistry registry, OperationsProperties properties) {
      return SpringAiTools.provider(registry, properties.getAi());
    }

    @Bean
    @ConditionalOnProperty(prefix = "operations.ai", name = "import-tools")
    SpringAiTools.Importer operationsToolImporter(
        OperationsProperties properties,
        ObjectProvider<org.springframework.ai.tool.ToolCallbackProvider> providers,
        ObjectProvider<org.springframework.ai.tool.ToolCallback> callbacks) {
      return new SpringAiTools.Importer(properties.getAi(), providers, callbacks);
    }
  }
}
