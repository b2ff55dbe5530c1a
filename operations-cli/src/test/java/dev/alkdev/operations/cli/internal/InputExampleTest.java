package dev.alkdev.operations.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.schema.Schema;
import org.junit.jupiter.api.Test;

class InputExampleTest {
  @Test
  void anExampleHasTheRequiredPropertiesWithinTheirBoundsAndIsValid() {
    Schema schema =
        Schema.fromJson(
            """
            {"type":"object","required":["name","kind","count","when","owner","tags"],
             "properties":{
               "name":{"type":"string","minLength":6},
               "kind":{"enum":["cat","dog"]},
               "count":{"type":"integer","minimum":3},
               "when":{"type":"string","format":"date-time"},
               "owner":{"$ref":"#/$defs/Owner"},
               "tags":{"type":"array","minItems":1,"items":{"type":"string"}},
               "note":{"type":"string"}},
             "$defs":{"Owner":{"type":"object","required":["email"],
               "properties":{"email":{"type":"string","format":"email"}}}}}
            """);
    assertThat(InputExample.of(schema).orElseThrow().toString())
        .isEqualTo(
            "{\"name\":\"textxx\",\"kind\":\"cat\",\"count\":3,\"when\":\"2026-01-01T12:00:00Z\","
                + "\"owner\":{\"email\":\"someone@example.com\"},\"tags\":[\"text\"]}");
  }

  @Test
  void noExampleIsGivenWhenNoneMadeFromTheSchemaIsValid() {
    Schema pattern =
        Schema.fromJson(
            """
            {"type":"object","required":["code"],
             "properties":{"code":{"type":"string","pattern":"^[A-Z]{3}$"}}}
            """);
    assertThat(InputExample.of(pattern)).isEmpty();
    OperationSpec spec = OperationSpec.builder("x", "y").inputSchema(pattern).build();
    assertThat(DescribeCommand.tryLine(spec)).isEqualTo("ops call x.y --input '{...}'");
  }

  @Test
  void theTryLineQuotesTheInputForAShell() {
    Schema quoted =
        Schema.fromJson(
            """
            {"type":"object","required":["q"],"properties":{"q":{"const":"it's"}}}
            """);
    OperationSpec spec = OperationSpec.builder("x", "y").inputSchema(quoted).build();
    assertThat(DescribeCommand.tryLine(spec))
        .isEqualTo("ops call x.y --input '{\"q\":\"it'\\''s\"}'");
    OperationSpec none = OperationSpec.builder("x", "z").build();
    assertThat(DescribeCommand.tryLine(none)).isEqualTo("ops call x.z");
  }
}
