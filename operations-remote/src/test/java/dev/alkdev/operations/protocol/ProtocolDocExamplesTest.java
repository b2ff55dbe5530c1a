package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.schema.SchemaError;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The JSON examples of docs/protocol.md are real events, and the errors are what the code says. */
class ProtocolDocExamplesTest {
  static final Path DOC =
      Path.of(System.getProperty("user.dir")).getParent().resolve("docs/protocol.md");

  static List<String> examples() throws Exception {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    Matcher blocks = Pattern.compile("```json\n(.*?)```", Pattern.DOTALL).matcher(doc);
    List<String> found = new ArrayList<>();
    while (blocks.find()) {
      if (!DISCOVERY.matcher(blocks.group(1)).find()) { // section 17: NodeEventsTest reads those
        found.add(blocks.group(1));
      }
    }
    return found;
  }

  /** A discovery message: {@code "type": "node.…"}. */
  static final Pattern DISCOVERY = Pattern.compile("\"type\"\\s*:\\s*\"node\\.");

  static JsonNode find(String fragment) throws Exception {
    return examples().stream()
        .filter(e -> e.contains(fragment))
        .map(CallEventFixtures::json)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no example contains " + fragment));
  }

  @Test
  void theDocumentHasAnExampleOfEveryEvent() throws Exception {
    List<String> types = new ArrayList<>();
    for (String example : examples()) {
      types.add(CallEventFixtures.json(example).get("type").asString());
    }
    assertThat(types)
        .contains(
            "call.requested",
            "call.responded",
            "call.error",
            "call.completed",
            "call.aborted",
            "call.demand",
            "call.alive")
        .hasSizeGreaterThanOrEqualTo(15);
  }

  @ParameterizedTest
  @MethodSource("examples")
  void everyExampleIsAValidEvent(String example) {
    JsonNode json = CallEventFixtures.json(example);
    assertThat(CallEvents.eventSchema().validate(json)).isEmpty();
    CallEvent event = CallEvents.fromJson(json);
    // What the Java side writes for it is the example itself.
    assertThat(CallEventFixtures.json(new String(CallEvents.encode(event), StandardCharsets.UTF_8)))
        .isEqualTo(json);
  }

  @Test
  void theProtocolErrorExampleIsWhatAServerAnswers() throws Exception {
    JsonNode example = find("PROTOCOL_ERROR");
    String request =
        "{\"v\": 1, \"type\": \"call.requested\", \"requestId\": \""
            + example.get("requestId").asString()
            + "\", \"replyTo\": \""
            + example.at("/error/details/replyTo").asString()
            + "\", \"operationId\": \"demo.echo\", \"deadlineMs\": -1}";
    CallError error = null;
    try {
      CallEvents.decode(request.getBytes(StandardCharsets.UTF_8), 1 << 20);
    } catch (CallError e) {
      error = e;
    }
    assertThat(error).isNotNull();
    String requestId = CallEvents.readableRequestId(error).orElseThrow();
    assertThat(CallEvents.toJson(CallEvents.failed(requestId, error))).isEqualTo(example);
  }

  @Test
  void theInvalidInputExampleIsWhatAServerSends() throws Exception {
    JsonNode example = find("INVALID_INPUT");
    CallError error =
        CallError.invalid(
            "input of demo.echo", List.of(new SchemaError("/message", "type", "must be a string")));
    ObjectNode sent =
        CallEvents.toJson(CallEvents.failed(example.get("requestId").asString(), error));
    assertThat(sent).isEqualTo(example);
  }

  @Test
  void theUnauthenticatedExampleIsWhatAServerSends() throws Exception {
    JsonNode example = find("UNAUTHENTICATED");
    try (InProcessPubSub pubsub = InProcessPubSub.create();
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, pubsub);
        PendingRequestMap calls = PendingRequestMap.create(pubsub)) {
      registry.register(
          OperationSpec.builder("demo", "echo").requiredScopes("demo:read").build(),
          (in, ctx) -> in);
      Throwable thrown =
          catchThrowable(() -> calls.call("demo.echo", "hi").get(5, TimeUnit.SECONDS));
      CallError error = (CallError) thrown.getCause();
      ObjectNode sent =
          CallEvents.toJson(CallEvents.failed(example.get("requestId").asString(), error));
      assertThat(sent).isEqualTo(example);
    }
  }
}
