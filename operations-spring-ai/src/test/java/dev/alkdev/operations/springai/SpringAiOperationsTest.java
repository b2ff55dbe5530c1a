package dev.alkdev.operations.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.AccessControl;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.Envelopes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.definition.ToolDefinition;
import tools.jackson.databind.JsonNode;

class SpringAiOperationsTest {
  private final OperationRegistry registry = OperationRegistry.create();
  private final WeatherTools weather = new WeatherTools();

  @AfterEach
  void close() {
    registry.close();
  }

  /** A Spring AI tool object as an application writes one. */
  static final class WeatherTools {
    final AtomicInteger forecasts = new AtomicInteger();
    final AtomicReference<Object> lastIdentity = new AtomicReference<>();

    @Tool(description = "The weather forecast for a city")
    public String forecast(
        @ToolParam(description = "the city") String city,
        @ToolParam(description = "how many days ahead") int days) {
      forecasts.incrementAndGet();
      return city + ": sunny for " + days + " days";
    }

    @Tool(description = "Who is asking")
    public String whoAmI(ToolContext context) {
      Object identity = context.getContext().get(OperationTools.IDENTITY_KEY);
      lastIdentity.set(identity);
      return ((Identity) identity).subject();
    }

    @Tool(description = "Always fails")
    public String broken() {
      throw new IllegalStateException("secret detail");
    }
  }

  private JsonNode execute(String id, Object input) {
    return Envelopes.unwrap(registry.execute(id, input).join());
  }

  private CallError failure(String id, Object input) {
    Throwable thrown = null;
    try {
      registry.execute(id, input).join();
    } catch (CompletionException e) {
      thrown = e.getCause();
    }
    assertThat(thrown).isInstanceOf(CallError.class);
    return (CallError) thrown;
  }

  @Test
  void toolMethodsBecomeOperationsInTheNamespace() {
    List<OperationSpec> specs =
        SpringAiOperations.registerToolObjects(registry, "weather", weather);

    assertThat(specs)
        .extracting(OperationSpec::id)
        .containsExactlyInAnyOrder("weather.forecast", "weather.whoAmI", "weather.broken");
    assertThat(registry.list("weather"))
        .extracting(OperationSpec::id)
        .containsExactly("weather.broken", "weather.forecast", "weather.whoAmI");
    OperationSpec forecast = registry.getSpec("weather.forecast").orElseThrow();
    assertThat(forecast.type()).isEqualTo(OperationType.MUTATION);
    assertThat(forecast.idempotent()).isFalse();
    assertThat(forecast.description()).isEqualTo("The weather forecast for a city");
    assertThat(forecast.inputSchema().json().path("properties").has("city")).isTrue();
    assertThat(forecast.outputSchema().isUnknown()).isTrue();
    assertThat(forecast.accessControl()).isEqualTo(AccessControl.open());
  }

  @Test
  void callingThroughTheRegistryRunsTheToolAndParsesItsJsonResult() {
    SpringAiOperations.registerToolObjects(registry, "weather", weather);

    JsonNode result = execute("weather.forecast", Map.of("city", "Oslo", "days", 2));

    // Spring AI writes a String result as JSON text; it comes back as a JSON string.
    assertThat(result.isString()).isTrue();
    assertThat(result.asString()).isEqualTo("Oslo: sunny for 2 days");
    assertThat(weather.forecasts).hasValue(1);
  }

  @Test
  void inputOfTheWrongTypeIsInvalidBeforeTheMethodRuns() {
    SpringAiOperations.registerToolObjects(registry, "weather", weather);

    CallError error = failure("weather.forecast", Map.of("city", "Oslo", "days", "two"));

    assertThat(error.code()).isEqualTo(ErrorCode.INVALID_INPUT);
    assertThat(error.validationErrors()).extracting(e -> e.instancePath()).containsExactly("/days");
    assertThat(weather.forecasts).hasValue(0);
  }

  @Test
  void aToolThatThrowsFailsTheCallWithExecutionError() {
    SpringAiOperations.registerToolObjects(registry, "weather", weather);

    CallError error = failure("weather.broken", Map.of());

    assertThat(error.code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
    assertThat(error.getMessage()).contains("broken").doesNotContain("secret detail");
    assertThat(error.toJson().toString()).doesNotContain("secret detail");
  }

  @Test
  void theToolContextCarriesTheCallersIdentity() {
    SpringAiOperations.registerToolObjects(registry, "weather", weather);
    Identity ada = Identity.of("ada");

    JsonNode result =
        Envelopes.unwrap(
            registry
                .execute(
                    "weather.whoAmI", Map.of(), OperationContext.builder().identity(ada).build())
                .join());

    assertThat(result.asString()).isEqualTo("ada");
    assertThat(weather.lastIdentity.get()).isEqualTo(ada);
  }

  @Test
  void anAccessControlAppliesToEveryImportedTool() {
    SpringAiOperations.into(registry, "weather")
        .accessControl(AccessControl.requireScopes("weather:read"))
        .registerToolObjects(weather);

    assertThat(registry.listCallableBy(Identity.anonymous())).isEmpty();
    assertThat(registry.listCallableBy(Identity.of("ada", "weather:read"))).hasSize(3);
  }

  @Test
  void aPlainCallbackAndAProviderRegisterToo() {
    ToolCallback upper = callback("upper", "{\"type\":\"object\"}", input -> "not json: " + input);

    SpringAiOperations.register(registry, "plain", upper);
    SpringAiOperations.register(
        registry, "provided", ToolCallbackProvider.from(callback("lower", "{}", input -> "[1,2]")));

    assertThat(execute("plain.upper", Map.of("a", 1)).asString()).isEqualTo("not json: {\"a\":1}");
    assertThat(execute("provided.lower", Map.of()).toString()).isEqualTo("[1,2]");
  }

  @Test
  void anInvalidInputSchemaIsRefusedNamingTheToolAndRegistersNothing() {
    ToolCallback good = callback("good", "{\"type\":\"object\"}", input -> "1");
    ToolCallback bad = callback("bad", "{\"type\": 12}", input -> "1");

    assertThatThrownBy(() -> SpringAiOperations.register(registry, "ns", good, bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Spring AI tool 'bad': its input schema cannot be used: ");
    assertThat(registry.list()).isEmpty();
  }

  @Test
  void aHostileInputSchemaIsRefusedNamingTheTool() {
    ToolCallback remote =
        callback(
            "fetcher", "{\"$ref\": \"http://169.254.169.254/latest/meta-data\"}", input -> "1");

    assertThatThrownBy(() -> SpringAiOperations.register(registry, "ns", remote))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Spring AI tool 'fetcher': its input schema cannot be used: ");
    assertThat(registry.list()).isEmpty();
  }

  @Test
  void aToolNameThatIsNoOperationNameIsRefused() {
    ToolCallback spaced = callback("two words", "{\"type\":\"object\"}", input -> "1");

    assertThatThrownBy(() -> SpringAiOperations.register(registry, "ns", spaced))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Spring AI tool 'two words' cannot be an operation: ");
  }

  @Test
  void aTakenIdIsRefusedBeforeAnythingIsRegistered() {
    ToolCallback one = callback("same", "{\"type\":\"object\"}", input -> "1");
    ToolCallback two = callback("same", "{\"type\":\"object\"}", input -> "2");

    assertThatThrownBy(() -> SpringAiOperations.register(registry, "ns", one, two))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ns.same is taken");
    assertThat(registry.list()).isEmpty();
    assertThatThrownBy(() -> SpringAiOperations.into(registry, "bad.namespace"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid namespace 'bad.namespace'");
  }

  @Test
  void aToolImportedAsAnOperationWorksAgainAsAToolForAModel() {
    SpringAiOperations.registerToolObjects(registry, "weather", weather);
    OperationTools tools =
        OperationTools.builder(registry)
            .identity(Identity.of("ada"))
            .include("weather.forecast")
            .build();
    ScriptedChatModel model =
        new ScriptedChatModel("weather_forecast", "{\"city\": \"Oslo\", \"days\": 3}");

    String answer =
        ChatClient.builder(model).build().prompt("Weather?").toolCallbacks(tools).call().content();

    assertThat(model.toolNamesOffered()).containsExactly("weather_forecast");
    assertThat(model.toolsOffered().get(0).description())
        .isEqualTo("The weather forecast for a city");
    assertThat(answer).isEqualTo("The tool said: \"Oslo: sunny for 3 days\"");
    assertThat(weather.forecasts).hasValue(1);
  }

  @Test
  void theIdentitySurvivesTheRoundTrip() {
    SpringAiOperations.registerToolObjects(registry, "weather", weather);
    OperationTools tools =
        OperationTools.builder(registry)
            .identity(Identity.of("ada"))
            .include("weather.who*")
            .build();

    String result = tools.toolCallbacks().get(0).call("{}");

    assertThat(result).isEqualTo("\"ada\"");
    assertThat(weather.lastIdentity.get()).isEqualTo(Identity.of("ada"));
  }

  private static ToolCallback callback(
      String name, String schema, java.util.function.UnaryOperator<String> body) {
    ToolDefinition definition =
        ToolDefinition.builder()
            .name(name)
            .description("test tool " + name)
            .inputSchema(schema)
            .build();
    return new ToolCallback() {
      @Override
      public ToolDefinition getToolDefinition() {
        return definition;
      }

      @Override
      public String call(String toolInput) {
        return body.apply(toolInput);
      }

      @Override
      public String call(String toolInput, ToolContext toolContext) {
        return call(toolInput);
      }
    };
  }
}
