package dev.alkdev.operations.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/** {@link OperationSpec#toJson()} and {@link OperationSpec#fromJson}, through {@link SpecJson}. */
class SpecJsonTest {
  static JsonNode json(String text) {
    return Json.mapper().readTree(text);
  }

  static final String OBJECT_SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"default\":1}},"
          + "\"required\":[\"n\"]}";

  static OperationSpec full() {
    return OperationSpec.builder("billing", "invoice.create")
        .version("2.0.1")
        .type(OperationType.MUTATION)
        .description("Creates an invoice")
        .inputSchema(OBJECT_SCHEMA)
        .outputSchema("{\"type\":\"string\"}")
        .requiredScopes("billing:write", "audit")
        .idempotent(true)
        .build();
  }

  @Test
  void toJsonWritesEveryFieldWithSortedScopes() {
    assertThat(full().toJson())
        .isEqualTo(
            json(
                "{\"id\":\"billing.invoice.create\",\"namespace\":\"billing\","
                    + "\"name\":\"invoice.create\",\"version\":\"2.0.1\",\"type\":\"MUTATION\","
                    + "\"description\":\"Creates an invoice\",\"inputSchema\":"
                    + OBJECT_SCHEMA
                    + ",\"outputSchema\":{\"type\":\"string\"},"
                    + "\"accessControl\":{\"requiredScopes\":[\"audit\",\"billing:write\"]},"
                    + "\"idempotent\":true}"));
  }

  @Test
  void specsRoundTripThroughJson() {
    List<OperationSpec> specs =
        List.of(
            full(),
            OperationSpec.builder("a", "minimal").build(),
            OperationSpec.builder("a", "stream")
                .type(OperationType.SUBSCRIPTION)
                .outputSchema("true")
                .build(),
            OperationSpec.builder("a", "draft7")
                .inputSchema(
                    "{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
                        + "\"definitions\":{\"s\":{\"type\":\"string\"}},"
                        + "\"$ref\":\"#/definitions/s\"}")
                .build());
    for (OperationSpec spec : specs) {
      JsonNode written = spec.toJson();
      OperationSpec read = OperationSpec.fromJson(written);
      assertThat(read.toJson()).as(spec.id()).isEqualTo(written);
      assertThat(read.id()).isEqualTo(spec.id());
      assertThat(read.type()).isEqualTo(spec.type());
      assertThat(read.accessControl()).isEqualTo(spec.accessControl());
      assertThat(read.inputSchema().isUnknown()).isEqualTo(spec.inputSchema().isUnknown());
      // Through text as well, as files and the wire carry it.
      OperationSpec reread = OperationSpec.fromJson(json(written.toString()));
      assertThat(reread.toJson()).isEqualTo(written);
    }
  }

  @Test
  void readSchemasWork() {
    OperationSpec read = OperationSpec.fromJson(full().toJson());
    assertThat(read.inputSchema().isValid(json("{\"n\":3}"))).isTrue();
    assertThat(read.inputSchema().validate(json("{\"n\":\"x\"}"))).isNotEmpty();
    assertThat(read.outputSchema().isValid(json("\"ok\""))).isTrue();
  }

  @Test
  void everythingButNamespaceAndNameHasADefault() {
    OperationSpec spec = OperationSpec.fromJson(json("{\"namespace\":\"a\",\"name\":\"b\"}"));
    assertThat(spec.id()).isEqualTo("a.b");
    assertThat(spec.type()).isEqualTo(OperationType.QUERY);
    assertThat(spec.version()).isEqualTo("1.0.0");
    assertThat(spec.description()).isEmpty();
    assertThat(spec.inputSchema().isUnknown()).isTrue();
    assertThat(spec.outputSchema().isUnknown()).isTrue();
    assertThat(spec.accessControl().requiredScopes()).isEmpty();
  }

  @Test
  void nullFieldsAndEmptySchemasCountAsAbsent() {
    OperationSpec spec =
        OperationSpec.fromJson(
            json(
                "{\"namespace\":\"a\",\"name\":\"b\",\"version\":null,\"type\":null,"
                    + "\"inputSchema\":{},\"outputSchema\":null,\"accessControl\":null}"));
    assertThat(spec.version()).isEqualTo("1.0.0");
    assertThat(spec.inputSchema().isUnknown()).isTrue();
    assertThat(spec.outputSchema().isUnknown()).isTrue();
    assertThat(spec.accessControl().requiredScopes()).isEmpty();
  }

  @Test
  void anIdAloneGivesNamespaceAndName() {
    OperationSpec spec = OperationSpec.fromJson(json("{\"id\":\"billing.invoice.create\"}"));
    assertThat(spec.namespace()).isEqualTo("billing");
    assertThat(spec.name()).isEqualTo("invoice.create");
  }

  @Test
  void theTypeMayBeInAnyCaseAndUnknownFieldsAreIgnored() {
    OperationSpec spec =
        OperationSpec.fromJson(
            json(
                "{\"namespace\":\"a\",\"name\":\"b\",\"type\":\"subscription\","
                    + "\"handler\":\"ignored\",\"x-extra\":{\"deep\":[1]}}"));
    assertThat(spec.type()).isEqualTo(OperationType.SUBSCRIPTION);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          [1]                                             | a spec must be a JSON object, was array
          "text"                                          | a spec must be a JSON object, was string
          {"namespace":"a"}                               | "name" is missing
          {"name":"b"}                                    | "namespace" is missing
          {"namespace":"a","name":7}                      | "name" must be a string, was number
          {"namespace":"a b","name":"c"}                  | Invalid namespace 'a b'
          {"namespace":"a","name":"b..c"}                 | Invalid operation name 'b..c'
          {"id":"nodot"}                                  | Operation id 'nodot' has no namespace
          {"id":5,"namespace":"a","name":"b"}             | "id" must be a string, was number
          {"id":"a.c","namespace":"a","name":"b"}         | "id" is "a.c" but namespace and name make "a.b"
          {"namespace":"a","name":"b","type":"QUREY"}     | "type" must be QUERY, MUTATION or SUBSCRIPTION, was "QUREY"
          {"namespace":"a","name":"b","type":1}           | "type" must be a string, was number
          {"namespace":"a","name":"b","version":" "}      | version of a.b is blank
          {"namespace":"a","name":"b","description":[]}   | "description" must be a string, was array
          {"namespace":"a","name":"b","inputSchema":"x"}  | "inputSchema": A schema must be a JSON object or a boolean
          {"namespace":"a","name":"b","outputSchema":{"$ref":"#/$defs/none"}} | "outputSchema": Invalid schema
          {"namespace":"a","name":"b","inputSchema":{"type":"string","pattern":"("}} | "inputSchema": Invalid schema
          {"namespace":"a","name":"b","accessControl":["x"]} | "accessControl" must be {"requiredScopes": ["scope", ...]}
          {"namespace":"a","name":"b","accessControl":{"requiredScopes":"x"}} | "accessControl" must be {"requiredScopes": ["scope", ...]}
          {"namespace":"a","name":"b","accessControl":{"requiredScopes":[1]}} | "accessControl.requiredScopes" must hold non-blank strings, found 1
          {"namespace":"a","name":"b","accessControl":{"requiredScopes":[" "]}} | "accessControl.requiredScopes" must hold non-blank strings, found " "
          {"namespace":"a","name":"b","idempotent":"yes"} | "idempotent" must be true or false, was string
          """)
  void invalidSpecsAreRefusedWithTheReason(String spec, String reason) {
    assertThatThrownBy(() -> OperationSpec.fromJson(json(spec)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(reason);
  }

  @Test
  void nothingIsNotASpec() {
    assertThatThrownBy(() -> OperationSpec.fromJson(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a spec must be a JSON object, was nothing");
  }
}
