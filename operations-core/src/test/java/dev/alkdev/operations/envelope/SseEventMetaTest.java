package dev.alkdev.operations.envelope;

import static dev.alkdev.operations.envelope.EnvelopeFixtures.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.internal.Json;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class SseEventMetaTest {

  private static JsonNode wire(JsonNode node) {
    return Json.mapper().readTree(Json.mapper().writeValueAsString(node));
  }

  private static final HttpResponseMeta STREAM =
      HttpResponseMeta.of(200, Map.of("Content-Type", "text/event-stream"), "text/event-stream");

  @Test
  void eventBlockRoundTrips() {
    HttpResponseMeta meta =
        STREAM.withEvent(new SseEventMeta("update", Optional.of("7"), OptionalLong.of(1500)));
    ResponseEnvelope<JsonNode> envelope = Envelopes.httpEnvelope(json("{\"n\": 1}"), meta);

    JsonNode written = wire(envelope.toJson());
    assertThat(written.get("meta").get("event"))
        .isEqualTo(json("{\"type\": \"update\", \"id\": \"7\", \"retry\": 1500}"));
    ResponseEnvelope<JsonNode> read = Envelopes.fromJson(written);

    assertThat(read.meta()).isEqualTo(meta);
    assertThat(wire(read.toJson())).isEqualTo(written);
    assertThat(Envelopes.responseEnvelopeSchema().validate(written)).isEmpty();
  }

  @Test
  void optionalPartsLeftOut() {
    HttpResponseMeta meta = STREAM.withEvent(SseEventMeta.message());
    JsonNode written = wire(Envelopes.httpEnvelope("x", meta).toJson());

    assertThat(written.get("meta").get("event")).isEqualTo(json("{\"type\": \"message\"}"));
    assertThat(Envelopes.fromJson(written).meta()).isEqualTo(meta);
    assertThat(Envelopes.responseEnvelopeSchema().validate(written)).isEmpty();
  }

  @Test
  void ordinaryResponsesHaveNoEventAndOldConstructorStillWorks() {
    HttpResponseMeta meta =
        new HttpResponseMeta(200, Map.of("a", "1"), "text/plain", Map.of("a", List.of("1")));
    assertThat(meta.event()).isEmpty();
    assertThat(meta).isEqualTo(HttpResponseMeta.of(200, Map.of("a", "1"), "text/plain"));
    assertThat(meta.toJson().has("event")).isFalse();
    assertThat(
            ((HttpResponseMeta)
                    Envelopes.fromJson(wire(Envelopes.httpEnvelope(1, meta).toJson())).meta())
                .event())
        .isEmpty();
  }

  @Test
  void malformedEventBlocksAreRejected() {
    for (String event :
        List.of(
            "\"x\"",
            "{}",
            "{\"type\": \"\"}",
            "{\"type\": 1}",
            "{\"type\": \"m\", \"id\": 5}",
            "{\"type\": \"m\", \"retry\": -1}",
            "{\"type\": \"m\", \"retry\": 1.5}")) {
      JsonNode envelope =
          json(
              "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": 200, \"headers\": {},"
                  + " \"contentType\": \"\", \"event\": "
                  + event
                  + "}}");
      assertThatThrownBy(() -> Envelopes.fromJson(envelope))
          .as(event)
          .isInstanceOf(CallError.class);
      assertThat(Envelopes.responseEnvelopeSchema().validate(envelope)).as(event).isNotEmpty();
    }
  }

  @Test
  void valueChecks() {
    assertThatThrownBy(() -> new SseEventMeta("", Optional.empty(), OptionalLong.empty()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SseEventMeta("m", Optional.empty(), OptionalLong.of(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
