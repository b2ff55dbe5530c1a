package dev.alkdev.operations.examples;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The README's quick start, runnable: {@code mvn -B -q compile exec:java -pl operations-examples
 * -am}. Prints what each step returns, then runs {@link RegistryExamples} and {@link
 * ProtocolExamples}.
 */
public final class QuickStart {
  private QuickStart() {}

  /** A value type; its schema is derived from the record components. */
  record Greeting(String message, int repeat) {}

  public static void main(String[] args) throws Exception {
    JsonMapper json = JsonMapper.builder().build();

    // snippet: compile
    Schema schema =
        Schema.fromJson(
            """
            {
              "type": "object",
              "required": ["message"],
              "properties": {
                "message": {"type": "string", "minLength": 1},
                "repeat": {"type": "integer", "minimum": 1, "default": 1}
              }
            }
            """);
    // end-snippet

    // snippet: validate
    JsonNode bad = json.readTree("{\"message\": \"\", \"repeat\": 0}");
    List<SchemaError> errors = schema.validate(bad);
    // [/message: must be at least 1 characters long, /repeat: must have a minimum value of 1]
    // end-snippet
    System.out.println("validate " + bad + " -> " + errors);

    // snippet: cast
    JsonNode loose = json.readTree("{\"message\": \"hi\", \"repeat\": \"3\", \"debug\": true}");
    JsonNode cast = schema.cast(loose);
    // {"message":"hi","repeat":3}: "3" became 3, the undeclared "debug" was dropped
    // end-snippet
    System.out.println("cast " + loose + " -> " + cast);
    System.out.println(
        "cast "
            + json.readTree("{\"message\":\"hi\"}")
            + " -> "
            + schema.cast(json.readTree("{\"message\":\"hi\"}")));

    // snippet: validateOrThrow
    try {
      CallError.validateOrThrow(schema, json.readTree("{}"), "input of demo.echo");
    } catch (CallError e) {
      // INVALID_INPUT: Invalid input of demo.echo: (root): required property 'message' not found
      System.out.println(e.code() + ": " + e.getMessage());
    }
    // end-snippet

    // snippet: fromType
    Schema fromRecord = Schema.fromType(Greeting.class);
    // end-snippet
    System.out.println("schema of record Greeting -> " + fromRecord.json());

    RegistryExamples.main(args);
    ProtocolExamples.main(args);
  }
}
