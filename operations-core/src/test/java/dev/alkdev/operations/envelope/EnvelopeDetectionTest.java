package dev.alkdev.operations.envelope;

import static dev.alkdev.operations.envelope.EnvelopeFixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.NullNode;

class EnvelopeDetectionTest {

  static Stream<Arguments> envelopes() {
    Map<String, Object> withNullData = new HashMap<>();
    withNullData.put("data", null);
    withNullData.put("meta", Map.of("source", "mcp"));
    return Stream.of(
        Arguments.of("a ResponseEnvelope", Envelopes.localEnvelope("x", "a.b")),
        Arguments.of("JSON, local", json("{\"data\": 1, \"meta\": {\"source\": \"local\"}}")),
        Arguments.of("JSON, http", json("{\"data\": {}, \"meta\": {\"source\": \"http\"}}")),
        Arguments.of("JSON, mcp", json("{\"data\": [], \"meta\": {\"source\": \"mcp\"}}")),
        Arguments.of(
            "JSON, data null", json("{\"data\": null, \"meta\": {\"source\": \"local\"}}")),
        Arguments.of(
            "JSON, a malformed meta is still detected",
            json("{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": \"x\"}}")),
        Arguments.of("map with a map meta", Map.of("data", 1, "meta", Map.of("source", "http"))),
        Arguments.of(
            "map with a ResponseMeta", Map.of("data", 1, "meta", new LocalResponseMeta("a.b", 1))),
        Arguments.of(
            "map with a JSON meta", Map.of("data", 1, "meta", json("{\"source\": \"local\"}"))),
        Arguments.of("map with null data", withNullData));
  }

  static Stream<Arguments> notEnvelopes() {
    Map<Integer, Object> integerKeys = new TreeMap<>();
    integerKeys.put(1, "x");
    Map<String, Object> nullMeta = new HashMap<>();
    nullMeta.put("data", 1);
    nullMeta.put("meta", null);
    return Stream.of(
        Arguments.of("Java null", null),
        Arguments.of("a string", "envelope"),
        Arguments.of("a number", 42),
        Arguments.of("a list", List.of(1, 2)),
        Arguments.of("JSON null", NullNode.getInstance()),
        Arguments.of("a JSON array", json("[{\"data\": 1, \"meta\": {\"source\": \"local\"}}]")),
        Arguments.of("JSON without data", json("{\"meta\": {\"source\": \"local\"}}")),
        Arguments.of("JSON without meta", json("{\"data\": 1}")),
        Arguments.of("JSON, meta a string", json("{\"data\": 1, \"meta\": \"local\"}")),
        Arguments.of("JSON, meta null", json("{\"data\": 1, \"meta\": null}")),
        Arguments.of(
            "JSON, meta an array", json("{\"data\": 1, \"meta\": [{\"source\": \"local\"}]}")),
        Arguments.of(
            "JSON, source other", json("{\"data\": 1, \"meta\": {\"source\": \"other\"}}")),
        Arguments.of("JSON, source sse", json("{\"data\": 1, \"meta\": {\"source\": \"sse\"}}")),
        Arguments.of(
            "JSON, source LOCAL", json("{\"data\": 1, \"meta\": {\"source\": \"LOCAL\"}}")),
        Arguments.of("JSON, source a number", json("{\"data\": 1, \"meta\": {\"source\": 1}}")),
        Arguments.of("JSON, source missing", json("{\"data\": 1, \"meta\": {}}")),
        Arguments.of("map without data", Map.of("meta", Map.of("source", "local"))),
        Arguments.of("map without meta", Map.of("data", 1)),
        Arguments.of("map, meta a string", Map.of("data", 1, "meta", "local")),
        Arguments.of("map, meta null", nullMeta),
        Arguments.of("map, source other", Map.of("data", 1, "meta", Map.of("source", "other"))),
        Arguments.of(
            "map, source not a string",
            Map.of("data", 1, "meta", Map.of("source", ResponseSource.LOCAL))),
        Arguments.of("map with integer keys", integerKeys),
        Arguments.of("a meta alone", new LocalResponseMeta("a.b", 1)),
        Arguments.of(
            "a record shaped like an envelope", new Lookalike(1, Map.of("source", "local"))));
  }

  /** Not inspected: only envelopes, JSON and maps are (convert other objects to JSON first). */
  record Lookalike(Object data, Object meta) {}

  @ParameterizedTest(name = "{0}")
  @MethodSource("envelopes")
  void detects(String name, Object value) {
    assertThat(Envelopes.isResponseEnvelope(value)).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("notEnvelopes")
  void rejects(String name, Object value) {
    assertThat(Envelopes.isResponseEnvelope(value)).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.alkdev.operations.envelope.EnvelopeFixtures#wellFormed")
  void detectsEveryWellFormedEnvelope(String name, String text) {
    assertThat(Envelopes.isResponseEnvelope(json(text))).isTrue();
  }

  @Test
  void everySourceHasItsWireName() {
    assertThat(ResponseSource.values())
        .extracting(ResponseSource::wireName)
        .containsExactly("local", "http", "mcp");
    assertThat(ResponseSource.fromWireName("http")).hasValue(ResponseSource.HTTP);
    assertThat(ResponseSource.fromWireName("HTTP")).isEmpty();
    assertThat(ResponseSource.fromWireName(null)).isEmpty();
  }
}
