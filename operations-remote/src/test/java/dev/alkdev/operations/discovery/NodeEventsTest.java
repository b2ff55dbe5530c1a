package dev.alkdev.operations.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.serving.OperationStats;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The discovery messages: what is written matches node-events.schema.json and reads back. */
class NodeEventsTest {
  static final OperationSpec SPEC =
      OperationSpec.builder("demo", "put")
          .type(OperationType.MUTATION)
          .idempotent(true)
          .inputSchema("{\"type\":\"object\"}")
          .requiredScopes("w")
          .build();

  static Schema schema() throws Exception {
    try (InputStream in = NodeEvents.class.getResourceAsStream("node-events.schema.json")) {
      return Schema.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void everyEventMatchesTheSchemaAndReadsBack() throws Exception {
    Schema schema = schema();
    String digest = NodeEvents.digest(List.of(SPEC));
    List<NodeEvent> events =
        List.of(
            new NodeEvent.Hello("n1", digest, 2000, Optional.of(List.of(SPEC))),
            new NodeEvent.Hello("n1", digest, 2000, Optional.empty()),
            new NodeEvent.Hello(
                "n1",
                digest,
                2000,
                Optional.of(List.of(SPEC)),
                Optional.of(
                    NodeSigner.of("billing", NodeKeys.generate().getPrivate())
                        .prove("n1", digest, 1_764_000_000_000L))),
            new NodeEvent.Heartbeat("n1", digest, 2000, 3, true),
            new NodeEvent.Bye("n1", 10_000),
            new NodeEvent.Bye("n1", 0),
            new NodeEvent.Query("ops.inbox.abc"),
            new NodeEvent.SpecsRequested("ops.inbox.abc"),
            new NodeEvent.Specs("n1", digest, 1, 2, List.of(SPEC)),
            new NodeEvent.StatsRequested("r1", "ops.inbox.abc", Optional.empty(), Optional.empty()),
            new NodeEvent.StatsRequested(
                "r1",
                "ops.inbox.abc",
                Optional.of("n1"),
                Optional.of(new Identity("bob", Set.of("a", "b")))),
            new NodeEvent.Stats(
                "r1",
                "n1",
                Instant.parse("2026-11-24T15:00:00.123Z"),
                2,
                false,
                true,
                List.of(
                    new OperationStats(
                        "demo.put",
                        12,
                        3,
                        Map.of(ErrorCode.INVALID_INPUT, 2L, ErrorCode.ACCESS_DENIED, 1L),
                        1,
                        new OperationStats.Latency(10, 120, 100, 180, 400, 410)),
                    new OperationStats(
                        "demo.idle", 0, 0, Map.of(), 0, OperationStats.Latency.NONE)),
                3));
    for (NodeEvent event : events) {
      byte[] bytes = NodeEvents.encode(event);
      assertThat(schema.validate(Json.mapper().readTree(bytes))).as(event.toString()).isEmpty();
      assertThat(NodeEvents.decode(bytes, 1 << 20)).isEqualTo(event);
    }
  }

  @Test
  void theExamplesInTheProtocolDocumentAreValidMessages() throws Exception {
    String doc =
        java.nio.file.Files.readString(
            java.nio.file.Path.of(System.getProperty("user.dir"))
                .getParent()
                .resolve("docs/protocol.md"));
    java.util.regex.Matcher blocks =
        java.util.regex.Pattern.compile("```json\n(.*?)```", java.util.regex.Pattern.DOTALL)
            .matcher(doc);
    Schema schema = schema();
    int found = 0;
    while (blocks.find()) {
      String block = blocks.group(1);
      if (block.matches("(?s).*\"type\"\\s*:\\s*\"node\\..*")) {
        assertThat(schema.validate(Json.mapper().readTree(block))).as(block).isEmpty();
        NodeEvents.decode(block.getBytes(StandardCharsets.UTF_8), 1 << 20);
        found++;
      }
    }
    assertThat(found).isGreaterThanOrEqualTo(2);
  }

  @Test
  void theDigestNamesTheSetNotItsOrder() {
    OperationSpec other = OperationSpec.builder("demo", "get").build();
    assertThat(NodeEvents.digest(List.of(SPEC, other)))
        .isEqualTo(NodeEvents.digest(List.of(other, SPEC)))
        .hasSize(64)
        .isNotEqualTo(NodeEvents.digest(List.of(SPEC)));
    assertThat(NodeEvents.digest(List.of(SPEC.toBuilder().idempotent(false).build())))
        .isNotEqualTo(NodeEvents.digest(List.of(SPEC)));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "[]",
        "{\"type\":\"node.bye\",\"nodeId\":\"n\",\"drainMs\":0}",
        "{\"v\":2,\"type\":\"node.bye\",\"nodeId\":\"n\",\"drainMs\":0}",
        "{\"v\":1,\"type\":\"node.nope\"}",
        "{\"v\":1,\"type\":\"node.bye\",\"nodeId\":\"a.b\",\"drainMs\":0}",
        "{\"v\":1,\"type\":\"node.bye\",\"nodeId\":\"n\",\"drainMs\":-1}",
        "{\"v\":1,\"type\":\"node.heartbeat\",\"nodeId\":\"n\"}",
        "{\"v\":1,\"type\":\"node.heartbeat\",\"nodeId\":\"n\",\"digest\":\"d\",\"inFlight\":0}",
        "{\"v\":1,\"type\":\"node.query\",\"replyTo\":\"has space\"}",
        "{\"v\":1,\"type\":\"node.hello\",\"nodeId\":\"n\",\"digest\":\"d\",\"heartbeatMs\":0}",
        "{\"v\":1,\"type\":\"node.hello\",\"nodeId\":\"n\",\"digest\":\"d\",\"heartbeatMs\":1,"
            + "\"proof\":\"signed\"}",
        "{\"v\":1,\"type\":\"node.hello\",\"nodeId\":\"n\",\"digest\":\"d\",\"heartbeatMs\":1,"
            + "\"proof\":{\"keyId\":\"k\",\"signedAt\":\"now\",\"signature\":\"AA\"}}",
        "{\"v\":1,\"type\":\"node.hello\",\"nodeId\":\"n\",\"digest\":\"d\",\"heartbeatMs\":1,"
            + "\"proof\":{\"keyId\":\"k\",\"signedAt\":1,\"signature\":\"AA\"}}",
        "{\"v\":1,\"type\":\"node.hello\",\"nodeId\":\"n\",\"digest\":\"d\",\"heartbeatMs\":1,"
            + "\"proof\":{\"keyId\":\"k\",\"signedAt\":1,\"signature\":\"*not base64*\"}}",
        "{\"v\":1,\"type\":\"node.specs\",\"nodeId\":\"n\",\"digest\":\"d\",\"part\":3,\"parts\":2,"
            + "\"specs\":[]}",
        "{\"v\":1,\"type\":\"node.specs\",\"nodeId\":\"n\",\"digest\":\"d\",\"part\":1,\"parts\":1,"
            + "\"specs\":[{\"name\":\"x\"}]}",
        "{\"v\":1,\"v\":1,\"type\":\"node.query\",\"replyTo\":\"t\"}",
        "{\"v\":1,\"type\":\"node.stats.requested\",\"replyTo\":\"t\"}",
        "{\"v\":1,\"type\":\"node.stats.requested\",\"requestId\":\"r\",\"replyTo\":\"t\","
            + "\"identity\":{\"subject\":\" \"}}",
        "{\"v\":1,\"type\":\"node.stats\",\"requestId\":\"r\",\"nodeId\":\"n\","
            + "\"startedAt\":\"yesterday\",\"inFlight\":0,\"operations\":[]}",
        "{\"v\":1,\"type\":\"node.stats\",\"requestId\":\"r\",\"nodeId\":\"n\","
            + "\"startedAt\":\"2026-11-24T15:00:00Z\",\"inFlight\":0,"
            + "\"operations\":[{\"id\":\"x\",\"calls\":-1,\"errors\":0,\"inFlight\":0}]}"
      })
  void malformedMessagesAreRefused(String json) {
    assertThatThrownBy(() -> NodeEvents.decode(json.getBytes(StandardCharsets.UTF_8), 1 << 20))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void oversizedMessagesAreRefusedBeforeParsing() {
    byte[] bytes = NodeEvents.encode(new NodeEvent.Query("ops.inbox.abc"));
    assertThatThrownBy(() -> NodeEvents.decode(bytes, bytes.length - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than");
  }
}
