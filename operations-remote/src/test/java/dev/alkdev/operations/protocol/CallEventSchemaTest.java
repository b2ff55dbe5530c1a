package dev.alkdev.operations.protocol;

import static dev.alkdev.operations.protocol.CallEventFixtures.ID;
import static dev.alkdev.operations.protocol.CallEventFixtures.REQUEST;
import static dev.alkdev.operations.protocol.CallEventFixtures.edit;
import static dev.alkdev.operations.protocol.CallEventFixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.schema.Schema;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class CallEventSchemaTest {
  static final Schema SCHEMA = CallEvents.eventSchema();

  static List<CallEvent> events() {
    return CallEventFixtures.all();
  }

  static List<CallEventFixtures.Malformed> malformed() {
    return CallEventFixtures.malformedJson();
  }

  @Test
  void isCompiledOnceAndIsDraft2020() {
    assertThat(CallEvents.eventSchema()).isSameAs(SCHEMA);
    assertThat(SCHEMA.json().get("$schema").asString())
        .isEqualTo("https://json-schema.org/draft/2020-12/schema");
    assertThat(SCHEMA.json().get("oneOf")).hasSize(7);
    assertThat(SCHEMA.json().get("$defs").propertyNames())
        .contains(
            "CallRequested",
            "CallResponded",
            "CallError",
            "CallCompleted",
            "CallAborted",
            "CallDemand",
            "CallAlive",
            "ResponseEnvelope");
  }

  @ParameterizedTest
  @MethodSource("events")
  void everyEventTheCodecWritesValidates(CallEvent event) {
    JsonNode written = json(new String(CallEvents.encode(event), StandardCharsets.UTF_8));
    assertThat(SCHEMA.validate(written)).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("events")
  void unknownFieldsAreAllowed(CallEvent event) {
    ObjectNode json = CallEvents.toJson(event);
    json.put("future", true);
    if (json.has("identity")) {
      ((ObjectNode) json.get("identity")).put("tenant", "acme");
    }
    if (json.has("error")) {
      ((ObjectNode) json.get("error")).put("hint", "later");
    }
    assertThat(SCHEMA.validate(json)).isEmpty();
  }

  @Test
  void optionalFieldsMayBeNullAsTheReaderAccepts() {
    String json =
        edit(
            REQUEST,
            e ->
                e.putNull("replyTo")
                    .putNull("parentRequestId")
                    .putNull("identity")
                    .putNull("deadlineMs")
                    .putNull("demand"));
    assertThat(SCHEMA.validate(json(json))).isEmpty();
    assertThat(CallEvents.fromJson(json(json))).isInstanceOf(CallEvent.Requested.class);
  }

  @ParameterizedTest
  @MethodSource("malformed")
  void malformedEventsDoNotValidate(CallEventFixtures.Malformed c) {
    assertThat(SCHEMA.validate(json(c.json()))).isNotEmpty();
  }

  @Test
  void anUnknownErrorCodeValidatesAsTheReaderAcceptsIt() {
    JsonNode event =
        json(
            "{\"v\": 1, \"type\": \"call.error\", \"requestId\": \""
                + ID
                + "\", \"error\": {\"code\": \"QUOTA_EXCEEDED\", \"message\": \"m\"}}");
    assertThat(SCHEMA.validate(event)).isEmpty();
  }

  @Test
  void requestIdPatternAgreesWithTheCodec() {
    for (String id :
        List.of(
            ID,
            "a",
            "a".repeat(128),
            "a".repeat(129),
            "",
            "a b",
            "a\tb",
            "r\u00e9q",
            "x:y.z_w-1",
            "a/b",
            "a*",
            "abc\n",
            "abc\r\n",
            "550e8400-e29b-41d4-a716-446655440000")) {
      JsonNode event = json("{\"v\": 1, \"type\": \"call.completed\"}");
      ((ObjectNode) event).put("requestId", id);
      assertThat(SCHEMA.isValid(event)).as(id).isEqualTo(CallEvents.isValidRequestId(id));
    }
  }

  @Test
  void topicPatternAgreesWithTheCodec() {
    for (String topic :
        List.of(
            "ops.inbox.0123",
            "_INBOX.x",
            "a/b@c:d-e_f",
            "x".repeat(256),
            "x".repeat(257),
            "",
            "ops.*",
            "ops.>",
            "ops inbox",
            "ops.[a]",
            "ops.?",
            "ops.inbox.x\n",
            "t\u00f6pic")) {
      JsonNode event = json(REQUEST);
      ((ObjectNode) event).put("replyTo", topic);
      assertThat(SCHEMA.isValid(event)).as(topic).isEqualTo(CallEvents.isValidTopic(topic));
    }
  }

  @Test
  void operationIdPatternAgreesWithTheCodec() {
    for (String id :
        List.of(
            "demo.echo",
            "demo.a.b.c",
            "d-1_x.y-2_z",
            "a".repeat(64) + ".b",
            "a".repeat(65) + ".b",
            "a." + "b".repeat(128),
            "a." + "b".repeat(129),
            "a." + "b".repeat(63) + "." + "c".repeat(64),
            "a." + "b".repeat(64) + "." + "c".repeat(64),
            "echo",
            ".echo",
            "demo.",
            "demo..echo",
            "demo.echo.",
            "de mo.echo",
            "d\u00e9mo.echo",
            "demo.echo\n")) {
      JsonNode event = json(REQUEST);
      ((ObjectNode) event).put("operationId", id);
      assertThat(SCHEMA.isValid(event)).as(id).isEqualTo(OperationSpec.isValidId(id));
    }
  }

  @Test
  void theEnvelopeDefinitionsAreTheEnvelopeSchemasOwn() throws Exception {
    // call-events.schema.json carries a copy of response-envelope.schema.json so that it stands
    // alone; this keeps the copy true. To refresh it, copy the envelope document's $defs, and its
    // root (without $schema and $defs) as $defs.ResponseEnvelope.
    JsonNode envelope;
    try (InputStream in =
        Envelopes.class.getResourceAsStream(
            "/dev/alkdev/operations/envelope/response-envelope.schema.json")) {
      envelope = CallEventFixtures.MAPPER.readTree(in);
    }
    JsonNode defs = SCHEMA.json().get("$defs");
    for (Map.Entry<String, JsonNode> def : envelope.get("$defs").properties()) {
      assertThat(defs.get(def.getKey())).as(def.getKey()).isEqualTo(def.getValue());
    }
    ObjectNode root = ((ObjectNode) envelope).deepCopy();
    root.remove("$schema");
    root.remove("$defs");
    assertThat(defs.get("ResponseEnvelope")).isEqualTo(root);
    assertThat(Envelopes.responseEnvelopeSchema().json()).isEqualTo(envelope);
  }
}
