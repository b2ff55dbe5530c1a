package dev.alkdev.operations.spring.boot.app;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import dev.alkdev.operations.scan.OperationProvider;
import dev.alkdev.operations.spring.boot.EnableTypedClients;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/** A Boot application with an annotated bean, a provider and an interceptor. */
@SpringBootApplication
@EnableTypedClients(TestApplication.GreeterClient.class)
public class TestApplication {

  /** The greeter's contract as a typed client: an injectable bean. */
  @Namespace("greeter")
  public interface GreeterClient {
    @Operation
    Greeting hello(Hello input);
  }

  public record Hello(String name) {}

  public record Greeting(String text) {}

  /** An annotated bean: its methods are operations greeter.hello and greeter.secret. */
  @Component
  @Namespace("greeter")
  public static class Greeter {
    public final AtomicInteger calls = new AtomicInteger();

    @Operation(description = "Greets someone by name")
    public Greeting hello(Hello input) {
      calls.incrementAndGet();
      return new Greeting("Hello, " + input.name() + "!");
    }

    @Operation(description = "Only for admins", scopes = "admin")
    public Greeting secret(Hello input) {
      return new Greeting("psst, " + input.name());
    }
  }

  /** Counts every call the registry runs: interceptor beans run around all of them. */
  @Bean
  CountingInterceptor countingInterceptor() {
    return new CountingInterceptor();
  }

  @Bean
  OperationProvider clockOperations() {
    return () ->
        List.of(
            new OperationDefinition(
                OperationSpec.builder("clock", "now")
                    .description("The time")
                    .inputSchema("{\"type\":\"object\"}")
                    .outputSchema("{\"type\":\"object\"}")
                    .build(),
                Handler.blocking(
                    (input, context) -> Map.of("millis", System.currentTimeMillis()))));
  }

  public static final class CountingInterceptor implements OperationInterceptor {
    public final AtomicInteger calls = new AtomicInteger();

    @Override
    public void intercept(Invocation invocation, Chain chain) {
      calls.incrementAndGet();
      chain.proceed(invocation.context());
    }
  }
}
