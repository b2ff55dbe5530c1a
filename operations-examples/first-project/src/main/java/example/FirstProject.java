package example;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** The README's first project: define an operation, call it, print the envelope. */
public final class FirstProject {
  public static void main(String[] args) {
    try (OperationRegistry registry = OperationRegistry.create()) {
      registry.register(
          OperationSpec.builder("greetings", "hello")
              .inputSchema(
                  "{\"type\": \"object\", \"required\": [\"name\"],"
                      + " \"properties\": {\"name\": {\"type\": \"string\"}}}")
              .build(),
          (input, context) -> "Hello, " + input.get("name").asString());
      ResponseEnvelope<JsonNode> envelope =
          registry.execute("greetings.hello", Map.of("name", "Ada")).join();
      System.out.println(envelope.toJson());
    }
  }
}
