package dev.alkdev.operations.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.spring.boot.app.TestApplication;
import dev.alkdev.operations.testing.BrokerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The auto-configuration's rules, each in a context of its own (no web server). */
class StarterContextTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(OperationsAutoConfiguration.class));

  @Configuration(proxyBeanMethods = false)
  static class GreeterConfig {
    @Bean
    TestApplication.Greeter greeter() {
      return new TestApplication.Greeter();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnRegistry {
    static final OperationRegistry REGISTRY = OperationRegistry.create();

    @Bean
    OperationRegistry myRegistry() {
      return REGISTRY;
    }
  }

  @Test
  void theApplicationsOwnRegistryWinsAndIsFilled() {
    runner
        .withUserConfiguration(OwnRegistry.class, GreeterConfig.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).getBean(OperationRegistry.class).isSameAs(OwnRegistry.REGISTRY);
              assertThat(OwnRegistry.REGISTRY.getSpec("greeter.hello")).isPresent();
            });
  }

  @Test
  void scanningCanBeTurnedOffAndTheStarterAsAWhole() {
    runner
        .withUserConfiguration(GreeterConfig.class)
        .withPropertyValues("operations.scan-beans=false")
        .run(
            context ->
                assertThat(context.getBean(OperationRegistry.class).getSpec("greeter.hello"))
                    .isEmpty());
    runner
        .withPropertyValues("operations.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(OperationRegistry.class));
  }

  @Test
  void aBrokenSourcePropertyFailsStartUpNamingIt() {
    runner
        .withPropertyValues("operations.openapi.pets.baseUrl=http://127.0.0.1:1")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasMessageContaining("operations.openapi.pets.location is required"));
  }

  @Test
  void aBrokenServingPropertyFailsStartUpNamingIt() {
    runner
        .withPropertyValues("operations.http.enabled=true", "operations.http.port=70000")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("operations.http.port"));
    runner
        .withPropertyValues("operations.nats.serve=true")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("operations.nats.url"));
    runner
        .withPropertyValues("operations.load-timeout=soon")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("operations.load-timeout"));
  }

  @Test
  void healthIsDownWhileTheNodesBrokerIsDown() throws Exception {
    try (BrokerProcess nats = nats()) {
      runner
          .withUserConfiguration(GreeterConfig.class)
          .withPropertyValues(
              "operations.nats.url=nats://127.0.0.1:" + nats.port(),
              "operations.nats.serve=true",
              "operations.nats.import-operations=true")
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                OperationsHealthIndicator health = context.getBean(OperationsHealthIndicator.class);
                assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                assertThat(context.getBean(OperationsServing.class).nodeIds()).containsKey("nats");
                // The node sees itself on the transport it imports from, once its hello arrives.
                String nodeId = context.getBean(OperationsServing.class).nodeIds().get("nats");
                awaitStatus(
                    health,
                    Status.UP,
                    h -> String.valueOf(h.getDetails().get("nodes")).contains(nodeId));

                nats.kill();
                awaitStatus(health, Status.DOWN, h -> true);
                nats.restart();
                awaitStatus(health, Status.UP, h -> true);
              });
    }
  }

  @Test
  void redisComesFromBootsPropertiesAndHealthFollowsItsBroker() throws Exception {
    try (BrokerProcess redis = redis()) {
      runner
          .withUserConfiguration(GreeterConfig.class)
          .withPropertyValues(
              "spring.data.redis.host=127.0.0.1",
              "spring.data.redis.port=" + redis.port(),
              "operations.redis.serve=true",
              "operations.redis.import-operations=true")
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                OperationsHealthIndicator health = context.getBean(OperationsHealthIndicator.class);
                String nodeId = context.getBean(OperationsServing.class).nodeIds().get("redis");
                Health up =
                    awaitStatus(
                        health,
                        Status.UP,
                        h -> String.valueOf(h.getDetails().get("nodes")).contains(nodeId));
                assertThat(up.getDetails().get("transports").toString())
                    .contains("redis://127.0.0.1:" + redis.port());
                // The node's operations, imported back from Redis, call through it.
                OperationRegistry registry = context.getBean(OperationRegistry.class);
                assertThat(registry.getSpec("greeter.hello")).isPresent();

                redis.kill();
                awaitStatus(health, Status.DOWN, h -> true);
                redis.restart();
                awaitStatus(health, Status.UP, h -> true);
              });
    }
  }

  private static BrokerProcess redis() throws IOException {
    String binary =
        BrokerProcess.locate(
                "redis-server", "redis-server", "/usr/bin/redis-server", "/usr/sbin/redis-server")
            .toString();
    return BrokerProcess.start(
        "redis-server",
        port ->
            List.of(
                binary,
                "--port",
                String.valueOf(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--loglevel",
                "warning",
                "--dir",
                System.getProperty("java.io.tmpdir")),
        port -> {
          try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(1000);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readNBytes(5), StandardCharsets.US_ASCII)
                .equals("+PONG");
          }
        });
  }

  private static Health awaitStatus(
      OperationsHealthIndicator indicator, Status status, java.util.function.Predicate<Health> also)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    Health health = indicator.health();
    while (System.nanoTime() < deadline) {
      health = indicator.health();
      if (health.getStatus().equals(status) && also.test(health)) {
        return health;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("health stayed " + health + ", expected " + status);
  }

  private static BrokerProcess nats() throws IOException {
    String binary =
        BrokerProcess.locate(
                "nats-server", "nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server")
            .toString();
    return BrokerProcess.start(
        "nats-server",
        port -> List.of(binary, "-a", "127.0.0.1", "-p", String.valueOf(port)),
        port -> {
          try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(1000);
            InputStream in = socket.getInputStream();
            return "INFO".equals(new String(in.readNBytes(4), StandardCharsets.US_ASCII));
          }
        });
  }

  /** A Spring AI tool bean, the way Spring AI applications declare them. */
  static class WeatherTools {
    @Tool(description = "The temperature in a city, in degrees Celsius")
    public int temperature(String city) {
      return city.length() * 3;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class ToolsConfig {
    @Bean
    ToolCallbackProvider weather() {
      return MethodToolCallbackProvider.builder().toolObjects(new WeatherTools()).build();
    }
  }

  @Test
  void theModelIsOfferedOnlyWhatItsScopesAllow() {
    runner
        .withUserConfiguration(GreeterConfig.class)
        .run(
            context -> {
              ToolCallbackProvider tools =
                  context.getBean("operationTools", ToolCallbackProvider.class);
              assertThat(names(tools)).contains("greeter_hello").doesNotContain("greeter_secret");
            });
    runner
        .withUserConfiguration(GreeterConfig.class)
        .withPropertyValues("operations.ai.scopes=admin")
        .run(
            context -> {
              ToolCallbackProvider tools =
                  context.getBean("operationTools", ToolCallbackProvider.class);
              assertThat(names(tools)).contains("greeter_hello", "greeter_secret");
              String answer =
                  Arrays.stream(tools.getToolCallbacks())
                      .filter(t -> t.getToolDefinition().name().equals("greeter_secret"))
                      .findFirst()
                      .orElseThrow()
                      .call("{\"name\":\"Ada\"}");
              assertThat(answer).contains("psst, Ada");
            });
  }

  @Test
  void springAiToolsAreImportedAsOperationsWhenAsked() {
    runner
        .withUserConfiguration(ToolsConfig.class)
        .withPropertyValues("operations.ai.import-tools=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              OperationRegistry registry = context.getBean(OperationRegistry.class);
              assertThat(registry.list())
                  .extracting(OperationSpec::id)
                  .contains("tools.temperature");
              assertThat(
                      registry
                          .execute("tools.temperature", Map.of("city", "Oslo"))
                          .get(10, TimeUnit.SECONDS)
                          .data()
                          .asInt())
                  .isEqualTo(12);
              // The starter's own provider is not imported back.
              assertThat(registry.list())
                  .extracting(OperationSpec::id)
                  .noneMatch(id -> id.startsWith("tools.tools_"));
            });
    runner
        .withUserConfiguration(ToolsConfig.class)
        .run(
            context ->
                assertThat(context.getBean(OperationRegistry.class).getSpec("tools.temperature"))
                    .isEmpty());
  }

  @Test
  void importedToolsNeedTheImportScopesAndOperationToolsAreNotImportedBack() {
    runner
        .withUserConfiguration(ToolsConfig.class, GreeterConfig.class, OwnOperationTools.class)
        .withPropertyValues(
            "operations.ai.import-tools=true", "operations.ai.import-scopes=weather")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              OperationRegistry registry = context.getBean(OperationRegistry.class);
              assertThat(registry.getSpec("tools.temperature").orElseThrow().accessControl())
                  .isEqualTo(dev.alkdev.operations.AccessControl.requireScopes("weather"));
              assertThat(registry.list())
                  .extracting(OperationSpec::id)
                  .noneMatch(id -> id.startsWith("tools.greeter"));
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnOperationTools {
    @Bean
    ToolCallbackProvider myOperationTools(OperationRegistry registry) {
      return dev.alkdev.operations.springai.OperationTools.builder(registry).build();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Refusing {
    @Bean
    dev.alkdev.operations.OperationInterceptor refuseEveryone() {
      return (invocation, chain) -> {
        throw dev.alkdev.operations.CallError.of(
            dev.alkdev.operations.ErrorCode.ACCESS_DENIED, "no one today");
      };
    }

    @Bean
    io.micrometer.core.instrument.MeterRegistry meters() {
      return new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    }
  }

  @Test
  void callsTheApplicationsInterceptorsRefuseAreStillMeasured() {
    runner
        .withUserConfiguration(GreeterConfig.class, Refusing.class)
        .run(
            context -> {
              OperationRegistry registry = context.getBean(OperationRegistry.class);
              org.assertj.core.api.Assertions.assertThatThrownBy(
                      () ->
                          registry
                              .execute("greeter.hello", Map.of("name", "x"))
                              .get(5, TimeUnit.SECONDS))
                  .hasMessageContaining("no one today");
              io.micrometer.core.instrument.MeterRegistry meters =
                  context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
              assertThat(
                      meters
                          .find("operations.calls")
                          .tag("operation", "greeter.hello")
                          .tag("outcome", "ACCESS_DENIED")
                          .timer())
                  .isNotNull();
            });
  }

  @Test
  void servingDoesNotRestartOnADrainedPipeline() {
    runner
        .withPropertyValues("operations.http.enabled=true")
        .run(
            context -> {
              OperationsServing serving = context.getBean(OperationsServing.class);
              assertThat(serving.httpUri()).isPresent();
              context.stop();
              assertThat(serving.httpUri()).isEmpty();
              assertThat(serving.isRunning()).isFalse();
              org.assertj.core.api.Assertions.assertThatThrownBy(serving::start)
                  .hasMessageContaining("does not restart");
            });
  }

  private static List<String> names(ToolCallbackProvider tools) {
    return Arrays.stream(tools.getToolCallbacks()).map(t -> t.getToolDefinition().name()).toList();
  }
}
