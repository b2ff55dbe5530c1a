package dev.alkdev.operations.protocol;

import static dev.alkdev.operations.protocol.CallEventFixtures.ALIVE;
import static dev.alkdev.operations.protocol.CallEventFixtures.ERROR;
import static dev.alkdev.operations.protocol.CallEventFixtures.ID;
import static dev.alkdev.operations.protocol.CallEventFixtures.REQUEST;
import static dev.alkdev.operations.protocol.CallEventFixtures.RESPONDED;
import static dev.alkdev.operations.protocol.CallEventFixtures.edit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The streaming writer and reader (D75) against the tree forms they replace: the writer gives the
 * bytes {@link CallEvents#toJson} gives, and {@link CallEvents#decode} (streaming, falling back to
 * the tree reader) ends exactly as the tree reader alone does, event for event and error for error.
 */
class CallEventsStreamingTest {
  private static final int MAX = CallEvents.DEFAULT_MAX_MESSAGE_BYTES;

  static List<CallEvent> events() {
    List<CallEvent> events = new ArrayList<>(CallEventFixtures.all());
    events.add(
        new CallEvent.Requested(
            ID,
            "ns.op",
            CallEventFixtures.json(
                "{\"é\": \"\\u0000 \\\" \\\\ \\n \\ud83d\\ude00\", \"n\": [1.5e300, -0, 2]}"),
            Optional.of(CallEventFixtures.PARENT),
            Optional.of(new Identity("someone \"quoted\"", Set.of("z", "a", "m"))),
            OptionalLong.of(Long.MAX_VALUE),
            Optional.of("ops.inbox.x"),
            OptionalLong.of(1),
            CallMetadata.of(Map.of("traceparent", "00-abc-def-01", "b", "2"))));
    for (Identity identity :
        List.of(
            Identity.anonymous(),
            Identity.of("one", "scope"),
            Identity.of("many", "a", "b", "c", "d", "e", "f", "g", "h", "i"))) {
      events.add(
          new CallEvent.Requested(
              ID,
              "ns.op",
              CallEventFixtures.json("{}"),
              Optional.empty(),
              Optional.of(identity),
              OptionalLong.empty(),
              Optional.of("ops.inbox.x"),
              OptionalLong.empty()));
    }
    events.add(new CallEvent.Aborted(ID, Optional.of("tab\there")));
    events.add(new CallEvent.Demand(ID, Long.MAX_VALUE));
    return events;
  }

  @ParameterizedTest
  @MethodSource("events")
  void theWriterGivesTheTreesBytes(CallEvent event) {
    byte[] tree = CallEventFixtures.MAPPER.writeValueAsBytes(CallEvents.toJson(event));
    assertThat(new String(CallEvents.encode(event), StandardCharsets.UTF_8))
        .isEqualTo(new String(tree, StandardCharsets.UTF_8));
  }

  @Test
  void nodesNoParserMakesAreWrittenAsTheMapperWritesThem() {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    ObjectNode input = nodes.objectNode();
    input.put("decimal", new java.math.BigDecimal("1.50"));
    input.put("float", 0.1f);
    input.put("short", (short) 3);
    input.put("binary", new byte[] {1, 2, 3});
    input.putPOJO("pojo", Map.of("a", 1));
    input.putArray("list").add(nodes.numberNode(new java.math.BigDecimal("2E+3"))).add("x");
    for (CallEvent event :
        List.of(
            new CallEvent.Requested(
                ID,
                "ns.op",
                input,
                Optional.empty(),
                Optional.empty(),
                OptionalLong.empty(),
                Optional.empty(),
                OptionalLong.empty()),
            new CallEvent.Failed(ID, ErrorCode.EXECUTION_ERROR, "m", false, Optional.of(input)))) {
      theWriterGivesTheTreesBytes(event);
    }
  }

  @ParameterizedTest
  @MethodSource("events")
  void theStreamingReaderReadsEveryPlainEventItself(CallEvent event) {
    // Not handed to the tree reader: that would be correct, only slower.
    assertThat(StreamingEventReader.decodeStreaming(CallEvents.encode(event))).isEqualTo(event);
  }

  @ParameterizedTest
  @MethodSource("dev.alkdev.operations.protocol.CallEventFixtures#malformedJson")
  void malformedEventsFailAsTheTreeReaderSays(CallEventFixtures.Malformed c) {
    assertSameOutcome(c.json().getBytes(StandardCharsets.UTF_8));
  }

  static List<String> unusual() {
    return List.of(
        // valid, but left to the tree reader
        edit(REQUEST, e -> e.put("v", 1.0).put("deadlineMs", 250.0).put("demand", 2.0)),
        edit(REQUEST, e -> e.putNull("replyTo").putNull("identity").putNull("meta")),
        edit(REQUEST, e -> e.remove("input")),
        edit(REQUEST, e -> e.putNull("input")),
        edit(REQUEST, e -> e.put("unknown", 5).putObject("more").put("x", 1)),
        "{\"v\": 1, \"type\": \"call.completed\", \"requestId\": \"" + ID + "\", \"replyTo\": 5}",
        "{\"v\": 1, \"type\": \"call.completed\", \"requestId\": \"" + ID + "\", \"n\": -1}",
        "{\"v\": 1, \"type\": \"call.aborted\", \"requestId\": \"" + ID + "\", \"reason\": null}",
        // wrong only in a field the streaming reader reads as a plain value
        edit(REQUEST, e -> e.put("replyTo", 5)),
        edit(REQUEST, e -> e.put("replyTo", "a b")),
        edit(REQUEST, e -> e.put("parentRequestId", true)),
        edit(REQUEST, e -> e.put("operationId", "nodot")),
        edit(REQUEST, e -> e.put("deadlineMs", -1)),
        edit(REQUEST, e -> e.put("demand", 0)),
        edit(REQUEST, e -> e.put("demand", "1")),
        edit(REQUEST, e -> e.put("v", 2)),
        edit(REQUEST, e -> e.put("v", -1)),
        edit(REQUEST, e -> e.put("type", 7)),
        edit(REQUEST, e -> e.putNull("requestId")),
        edit(REQUEST, e -> e.put("deadlineMs", new java.math.BigInteger("99999999999999999999"))),
        edit(ALIVE, e -> e.put("inbox", "ops.inbox.")),
        edit(ALIVE, e -> e.remove("v")),
        edit(RESPONDED, e -> e.putNull("output")),
        edit(ERROR, e -> e.putObject("error").put("code", "NOPE").put("message", "m")),
        edit(ERROR, e -> e.putObject("error").put("code", "unavailable").put("message", "m")),
        edit(ERROR, e -> e.putObject("error").put("code", "UNAVAILABLE").put("retryable", 1)),
        // the identity, which the streaming reader reads without a tree
        edit(REQUEST, e -> e.putObject("identity").put("subject", "s").put("extra", 1)),
        edit(REQUEST, e -> e.putObject("identity").put("subject", "s").putNull("scopes")),
        edit(REQUEST, e -> e.putObject("identity").put("subject", "s").putArray("scopes")),
        edit(REQUEST, e -> e.putObject("identity").put("subject", "s").put("scopes", "a")),
        edit(
            REQUEST,
            e -> e.putObject("identity").put("subject", "s").putArray("scopes").add("b").add("b")),
        edit(
            REQUEST,
            e -> e.putObject("identity").put("subject", "s").putArray("scopes").add("a").add(" ")),
        edit(
            REQUEST,
            e -> e.putObject("identity").put("subject", "s").putArray("scopes").add("a").add(2)),
        edit(REQUEST, e -> e.putObject("identity").put("subject", " ")),
        edit(REQUEST, e -> e.putObject("identity").put("subject", "x".repeat(257))),
        edit(REQUEST, e -> e.putObject("identity").put("subject", "\ud83d\ude00".repeat(256))),
        edit(REQUEST, e -> e.putObject("identity").put("subject", "\ud83d\ude00".repeat(257))),
        edit(REQUEST, e -> e.putObject("identity").putNull("subject")),
        edit(REQUEST, e -> e.putObject("identity")),
        edit(REQUEST, e -> e.put("identity", "alice")),
        edit(REQUEST, e -> e.putArray("identity")),
        edit(
            REQUEST,
            e -> {
              var scopes = e.putObject("identity").put("subject", "s").putArray("scopes");
              for (int i = 0; i <= CallEvents.MAX_SCOPES; i++) {
                scopes.add("s" + i);
              }
            }),
        REQUEST.replace(
            "\"input\":", "\"identity\": {\"subject\": \"x\", \"subject\": \"y\"}, \"input\":"),
        REQUEST.replace(
            "\"input\":",
            "\"identity\": {\"scopes\": [], \"subject\": \"x\", \"scopes\": []}, \"input\":"),
        REQUEST.replace(
            "\"input\":", "\"identity\": {\"subject\": \"x\"}, \"identity\": null, \"input\":"),
        // ids and topics, which the events' constructors check
        edit(REQUEST, e -> e.put("requestId", "has space")),
        edit(REQUEST, e -> e.put("requestId", "x".repeat(129))),
        edit(REQUEST, e -> e.put("parentRequestId", "a/b")),
        edit(REQUEST, e -> e.put("replyTo", "x".repeat(257))),
        edit(RESPONDED, e -> e.put("requestId", "")),
        edit(ERROR, e -> e.put("requestId", "é")),
        // not an event at all
        "",
        "[]",
        "{}",
        "{\"v\": 1} {}",
        "{\"v\": 1, \"v\": 1, \"type\": \"call.completed\", \"requestId\": \"" + ID + "\"}",
        "{\"v\": 1, \"type\": \"call.completed\", \"requestId\": \""
            + ID
            + "\", \"requestId\": \"b\"}",
        "{\"v\": 1, \"type\": \"call.completed\", \"requestId\": \""
            + ID
            + "\", \"x\": {\"a\": 1, \"a\": 2}}",
        // duplicate names where the streaming reader checks them itself (D77)
        "{\"v\": 1, \"type\": \"call.completed\", \"requestId\": \""
            + ID
            + "\", \"x\": 1, \"y\": 2, \"x\": 3}",
        "{\"v\": 1, \"type\": \"call.completed\", \"requestId\": \""
            + ID
            + "\", \"x\": [1, {\"a\": 1, \"b\": 2, \"c\": 3, \"b\": 4}]}",
        "{\"v\": 1, \"type\": \"call.completed\", \"meta\": {}, \"requestId\": \""
            + ID
            + "\", \"meta\": {}}",
        CallEventFixtures.requestWithInput("{\"a\": {\"b\": [{\"c\": 1, \"c\": 1}]}}"),
        CallEventFixtures.requestWithInput("{\"a\": 1, \"b\": 2, \"c\": 3, \"a\": 1}"),
        RESPONDED.replace("\"output\":", "\"output\": {}, \"output\":"),
        CallEventFixtures.requestWithInput("{\"a\": 1, \"b\": 2, \"c\": 3}"),
        "{\"v\": 1, \"type\": \"call.completed\", \"requestId\": \""
            + ID
            + "\", \"x\": "
            + "[".repeat(300)
            + "]".repeat(300)
            + "}");
  }

  @ParameterizedTest
  @MethodSource("unusual")
  void unusualMessagesEndAsTheTreeReaderSays(String json) {
    assertSameOutcome(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void damagedMessagesEndAsTheTreeReaderSays() {
    Random random = new Random(76);
    for (CallEvent event : events()) {
      byte[] original = CallEvents.encode(event);
      for (int i = 0; i < 300; i++) {
        byte[] bytes = original.clone();
        int at = random.nextInt(bytes.length);
        switch (random.nextInt(3)) {
          case 0 -> bytes[at] = (byte) random.nextInt(256);
          case 1 -> bytes = java.util.Arrays.copyOf(bytes, at);
          default -> bytes[at] = (byte) "{}[]\",:0-.e\\ n1".charAt(random.nextInt(15));
        }
        assertSameOutcome(bytes);
      }
    }
  }

  private static void assertSameOutcome(byte[] bytes) {
    Object expected = outcome(() -> EventReader.decodeTree(bytes));
    Object actual = outcome(() -> CallEvents.decode(bytes, MAX));
    assertThat(actual)
        .as("reading %s", new String(bytes, StandardCharsets.UTF_8))
        .isEqualTo(expected);
  }

  /** The event read, or the error's code, message and details. */
  private static Object outcome(java.util.function.Supplier<CallEvent> read) {
    try {
      return read.get();
    } catch (CallError e) {
      assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
      return List.of(e.code(), e.getMessage(), e.details().map(Object::toString).orElse(""));
    }
  }
}
