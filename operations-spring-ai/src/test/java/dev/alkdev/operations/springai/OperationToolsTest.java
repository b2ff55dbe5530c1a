package dev.alkdev.operations.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class OperationToolsTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String ADD_SCHEMA =
      """
      {"type": "object", "required": ["a", "b"],
       "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}""";

  private final OperationRegistry registry = OperationRegistry.create();
  private final AtomicInteger adds = new AtomicInteger();

  OperationToolsTest() {
    registry.register(
        OperationSpec.builder("math", "add")
            .description("Adds two integers")
            .inputSchema(ADD_SCHEMA)
            .build(),
        (input, context) -> {
          adds.incrementAndGet();
          return Map.of("sum", input.get("a").asInt() + input.get("b").asInt());
        });
  }

  @AfterEach
  void close() {
    registry.close();
  }

  private static String chat(ScriptedChatModel model, OperationTools tools) {
    return ChatClient.builder(model)
        .build()
        .prompt("Add 2 and 3")
        .toolCallbacks(tools)
        .call()
        .content();
  }

  private static ToolCallback tool(OperationTools tools, String name) {
    return tools.toolCallbacks().stream()
        .filter(t -> t.getToolDefinition().name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void theModelsToolCallReachesTheOperationOnceAndTheAnswerHoldsItsResult() {
    OperationTools tools = OperationTools.builder(registry).build();
    ScriptedChatModel model = new ScriptedChatModel("math_add", "{\"a\": 2, \"b\": 3}");

    String answer = chat(model, tools);

    assertThat(adds).hasValue(1);
    assertThat(model.toolNamesOffered()).containsExactly("math_add");
    assertThat(model.toolResponsesSeen()).containsExactly("{\"sum\":5}");
    assertThat(answer).isEqualTo("The tool said: {\"sum\":5}");
  }

  @Test
  void theToolDefinitionCarriesTheOperationsDescriptionAndInputSchema() {
    ToolCallback add = tool(OperationTools.builder(registry).build(), "math_add");

    assertThat(add.getToolDefinition().description()).isEqualTo("Adds two integers");
    assertThat(JSON.readTree(add.getToolDefinition().inputSchema()))
        .isEqualTo(JSON.readTree(ADD_SCHEMA));
  }

  @Test
  void invalidArgumentsComeBackToTheModelAsTextAndTheHandlerNeverRuns() {
    ScriptedChatModel model = new ScriptedChatModel("math_add", "{\"a\": \"two\", \"b\": 3}");

    String answer = chat(model, OperationTools.builder(registry).build());

    assertThat(adds).hasValue(0);
    assertThat(model.toolResponsesSeen()).hasSize(1);
    String seen = model.toolResponsesSeen().get(0);
    assertThat(seen)
        .startsWith("error INVALID_INPUT: input is invalid: /a: ")
        .contains("integer")
        .endsWith("Fix the arguments to match the tool's input schema and call again.");
    assertThat(answer).contains(seen);
  }

  @Test
  void malformedJsonArgumentsGiveTextNotAnException() {
    ScriptedChatModel model = new ScriptedChatModel("math_add", "{\"a\": 2, \"b\":");

    chat(model, OperationTools.builder(registry).build());

    assertThat(adds).hasValue(0);
    assertThat(model.toolResponsesSeen().get(0))
        .startsWith("error INVALID_INPUT: the arguments are not valid JSON (")
        .contains("line 1")
        .endsWith(
            "Send the arguments as one JSON object matching the tool's input schema and call again.");
  }

  @Test
  void aCallerWithoutTheScopeDoesNotSeeTheToolAndCallingItAnywayIsRefused() {
    AtomicInteger charges = new AtomicInteger();
    registry.register(
        OperationSpec.builder("billing", "charge")
            .type(OperationType.MUTATION)
            .requiredScopes("billing:write")
            .build(),
        (input, context) -> charges.incrementAndGet());
    OperationTools tools =
        OperationTools.builder(registry).identity(Identity.of("eve", "billing:read")).build();
    ScriptedChatModel model = new ScriptedChatModel("billing_charge", "{}");

    // Spring AI runs only the tools attached to the request: the name alone reaches nothing.
    assertThatThrownBy(() -> chat(model, tools))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("billing_charge");
    assertThat(model.toolNamesOffered()).containsExactly("math_add");
    assertThat(charges).hasValue(0);
  }

  @Test
  void theToolContextsIdentityIsCheckedAtCallTime() {
    AtomicReference<Identity> ranAs = new AtomicReference<>();
    registry.register(
        OperationSpec.builder("billing", "charge")
            .type(OperationType.MUTATION)
            .requiredScopes("billing:write")
            .build(),
        (input, context) -> {
          ranAs.set(context.identity());
          return "charged";
        });
    OperationTools tools =
        OperationTools.builder(registry).identity(Identity.of("admin", "billing:write")).build();
    ScriptedChatModel model = new ScriptedChatModel("billing_charge", "{}");

    String answer =
        ChatClient.builder(model)
            .build()
            .prompt("Charge me")
            .toolCallbacks(tools)
            .toolContext(Map.of(OperationTools.IDENTITY_KEY, Identity.of("eve")))
            .call()
            .content();

    assertThat(ranAs.get()).isNull();
    assertThat(model.toolResponsesSeen())
        .containsExactly(
            "error ACCESS_DENIED: Access denied to billing.charge: missing scope(s) billing:write."
                + " The user may not use this tool; do not call it again, tell the user instead.");
    assertThat(answer).contains("ACCESS_DENIED");

    // The same tool, called with a permitted identity in the context, runs as that identity.
    Identity bob = Identity.of("bob", "billing:write");
    String result =
        tool(tools, "billing_charge")
            .call("{}", new ToolContext(Map.of(OperationTools.IDENTITY_KEY, bob)));
    assertThat(result).isEqualTo("\"charged\"");
    assertThat(ranAs.get()).isEqualTo(bob);
  }

  @Test
  void aToolContextIdentityOfAnotherTypeIsAMisuseThatThrows() {
    ToolCallback add = tool(OperationTools.builder(registry).build(), "math_add");

    assertThatThrownBy(
            () ->
                add.call(
                    "{\"a\":1,\"b\":2}",
                    new ToolContext(Map.of(OperationTools.IDENTITY_KEY, "eve"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(OperationTools.IDENTITY_KEY)
        .hasMessageContaining("java.lang.String")
        .hasMessageContaining(Identity.class.getName());
    assertThat(adds).hasValue(0);
  }

  @Test
  void aSubscriptionToolCollectsBoundedItemsThenCancelsTheStream() throws Exception {
    CountDownLatch released = new CountDownLatch(1);
    AtomicReference<Throwable> stoppedBy = new AtomicReference<>();
    registry.register(
        OperationSpec.builder("clock", "ticks").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (input, context, emitter) -> {
              try {
                for (int n = 0; ; n++) {
                  emitter.emit(Map.of("tick", n));
                }
              } catch (CallError | InterruptedException e) {
                stoppedBy.set(e);
                throw e;
              } finally {
                released.countDown();
              }
            }));
    OperationTools tools =
        OperationTools.builder(registry).include("clock.*").subscriptionItems(3).build();
    ScriptedChatModel model = new ScriptedChatModel("clock_ticks", "{}");

    chat(model, tools);

    assertThat(JSON.readTree(model.toolResponsesSeen().get(0)))
        .isEqualTo(
            JSON.readTree(
                "{\"items\":[{\"tick\":0},{\"tick\":1},{\"tick\":2}],\"complete\":false}"));
    assertThat(released.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(stoppedBy.get()).isNotNull();
    assertThat(tool(tools, "clock_ticks").getToolDefinition().description())
        .contains("at most 3")
        .contains("\"complete\"");
  }

  @Test
  void aSubscriptionToolStopsWhenItsWindowCloses() throws Exception {
    CountDownLatch released = new CountDownLatch(1);
    registry.register(
        OperationSpec.builder("slow", "feed").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (input, context, emitter) -> {
              try {
                emitter.emit("first");
                Thread.sleep(60_000);
              } finally {
                released.countDown();
              }
            }));
    ToolCallback feed =
        tool(
            OperationTools.builder(registry).subscriptionWindow(Duration.ofMillis(300)).build(),
            "slow_feed");

    long start = System.nanoTime();
    String result = feed.call("{}");

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(JSON.readTree(result))
        .isEqualTo(JSON.readTree("{\"items\":[\"first\"],\"complete\":false}"));
    assertThat(released.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aStreamThatEndsByItselfIsComplete() {
    registry.register(
        OperationSpec.builder("short", "list").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (input, context, emitter) -> {
              emitter.emit(1);
              emitter.emit(2);
            }));

    String result = tool(OperationTools.builder(registry).build(), "short_list").call("{}");

    assertThat(JSON.readTree(result))
        .isEqualTo(JSON.readTree("{\"items\":[1,2],\"complete\":true}"));
  }

  @Test
  void aStreamThatFailsBeforeAnyItemIsAnErrorText() {
    registry.register(
        OperationSpec.builder("broken", "feed").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (input, context, emitter) -> {
              throw new IllegalStateException("disk on fire");
            }));

    String result = tool(OperationTools.builder(registry).build(), "broken_feed").call("{}");

    assertThat(result).startsWith("error EXECUTION_ERROR: ").doesNotContain("disk on fire");
  }

  @Test
  void aHandlerFailureIsAnErrorTextThatDoesNotQuoteTheException() {
    registry.register(
        OperationSpec.builder("math", "divide").build(),
        (input, context) -> {
          throw new ArithmeticException("secret internals");
        });

    String result = tool(OperationTools.builder(registry).build(), "math_divide").call("{}");

    assertThat(result)
        .startsWith("error EXECUTION_ERROR: Operation math.divide failed.")
        .endsWith("Calling again with the same arguments will likely fail the same way.")
        .doesNotContain("secret internals");
  }

  @Test
  void aCallPastItsTimeoutIsDeadlineExceeded() {
    registry.register(
        OperationSpec.builder("slow", "query").build(),
        (input, context) -> {
          Thread.sleep(60_000);
          return "late";
        });
    ToolCallback slow =
        tool(
            OperationTools.builder(registry).timeout(Duration.ofMillis(200)).build(), "slow_query");

    assertThat(slow.call("{}")).startsWith("error DEADLINE_EXCEEDED: ");
  }

  @Test
  void anOperationGoneSinceTheToolsWereBuiltIsNotFound() {
    ToolCallback add = tool(OperationTools.builder(registry).build(), "math_add");
    registry.unregister("math.add");

    assertThat(add.call("{\"a\":1,\"b\":2}"))
        .isEqualTo(
            "error OPERATION_NOT_FOUND: Operation not found: math.add. This tool is not available"
                + " now; do not call it again.");
  }

  @Test
  void aNonObjectInputSchemaIsWrappedUnderInput() {
    registry.register(
        OperationSpec.builder("text", "shout")
            .inputSchema(
                """
                {"$schema": "https://json-schema.org/draft/2020-12/schema",
                 "$ref": "#/$defs/word", "$defs": {"word": {"type": "string", "minLength": 1}}}""")
            .build(),
        (input, context) -> input.asString().toUpperCase());
    ToolCallback shout = tool(OperationTools.builder(registry).build(), "text_shout");

    JsonNode schema = JSON.readTree(shout.getToolDefinition().inputSchema());
    assertThat(schema.path("type").asString()).isEqualTo("object");
    assertThat(schema.path("required").get(0).asString()).isEqualTo("input");
    assertThat(schema.path("$schema").asString()).contains("2020-12");
    assertThat(schema.at("/properties/input/$ref").asString())
        .isEqualTo("#/properties/input/$defs/word");
    assertThat(shout.call("{\"input\": \"hi\"}")).isEqualTo("\"HI\"");
    assertThat(shout.call("{\"input\": 5}"))
        .startsWith("error INVALID_INPUT: input is invalid: /input: ");
    assertThat(shout.call("{}"))
        .startsWith(
            "error INVALID_INPUT: input is invalid: (root): the arguments must be an object")
        .contains("\"input\"");
  }

  @Test
  void anOperationWithoutAnInputSchemaTakesAnOpenObject() {
    registry.register(OperationSpec.builder("demo", "echo").build(), (input, context) -> input);
    ToolCallback echo = tool(OperationTools.builder(registry).build(), "demo_echo");

    assertThat(echo.getToolDefinition().inputSchema()).isEqualTo("{\"type\":\"object\"}");
    assertThat(echo.call("{\"x\": [1, 2]}")).isEqualTo("{\"x\":[1,2]}");
    assertThat(echo.call("")).isEqualTo("null");
  }

  @Test
  void includeAndExcludeChooseTheOperations() {
    registry.register(OperationSpec.builder("math", "sub").build(), (input, context) -> 0);
    registry.register(OperationSpec.builder("text", "len").build(), (input, context) -> 0);

    assertThat(names(OperationTools.builder(registry).build()))
        .containsExactly("math_add", "math_sub", "text_len");
    assertThat(names(OperationTools.builder(registry).include("math.*").build()))
        .containsExactly("math_add", "math_sub");
    assertThat(names(OperationTools.builder(registry).include("*.len", "math.add").build()))
        .containsExactly("math_add", "text_len");
    assertThat(names(OperationTools.builder(registry).exclude("math.a*").build()))
        .containsExactly("math_sub", "text_len");
    assertThatThrownBy(() -> OperationTools.builder(registry).include(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("include pattern");
  }

  private static List<String> names(OperationTools tools) {
    return tools.toolCallbacks().stream().map(t -> t.getToolDefinition().name()).toList();
  }

  @Test
  void toolNamesAreLegalForModelsAndStable() {
    assertThat(OperationTools.toolName("github.repos.get")).isEqualTo("github_repos_get");
    String longId = "ns." + "x".repeat(100);
    String name = OperationTools.toolName(longId);
    assertThat(name).hasSize(64).matches("[a-zA-Z0-9_-]{1,64}").startsWith("ns_xxx");
    assertThat(OperationTools.toolName(longId)).isEqualTo(name);
    assertThat(OperationTools.toolName(longId + "y")).isNotEqualTo(name).hasSize(64);
  }

  @Test
  void twoOperationsWithOneToolNameAreBothOfferedUnderDistinctNames() {
    registry.register(OperationSpec.builder("a", "b_c").build(), (input, context) -> 1);
    registry.register(OperationSpec.builder("a_b", "c").build(), (input, context) -> 2);

    OperationTools tools = OperationTools.builder(registry).build();
    // The first id in id order keeps the plain name; the other's name carries its hash.
    List<String> mine = names(tools).stream().filter(n -> n.startsWith("a_b_c")).toList();
    assertThat(mine).hasSize(2).contains("a_b_c");
    String other = mine.stream().filter(n -> !n.equals("a_b_c")).findFirst().orElseThrow();
    assertThat(other).matches("a_b_c_[0-9a-f]{8}");
    assertThat(
            tools.toolCallbacks().stream()
                .filter(t -> t.getToolDefinition().name().equals(other))
                .findFirst()
                .orElseThrow()
                .call("{}"))
        .isEqualTo("2");
    assertThat(names(OperationTools.builder(registry).exclude("a_b.c").build()))
        .filteredOn(n -> n.startsWith("a_b_c"))
        .containsExactly("a_b_c");
  }

  @Test
  void builderSettingsAreChecked() {
    OperationTools.Builder builder = OperationTools.builder(registry);
    assertThatThrownBy(() -> builder.subscriptionItems(0))
        .hasMessage("subscriptionItems must be 1 to 10000, was 0");
    assertThatThrownBy(() -> builder.timeout(Duration.ZERO))
        .hasMessage("timeout must be positive, was PT0S");
    assertThatThrownBy(() -> builder.subscriptionWindow(Duration.ofSeconds(-1)))
        .hasMessageContaining("subscriptionWindow must be positive");
  }
}
