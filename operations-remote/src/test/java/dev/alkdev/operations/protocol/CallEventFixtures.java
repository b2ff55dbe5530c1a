package dev.alkdev.operations.protocol;

import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Events of every kind, with every optional field present and absent. */
final class CallEventFixtures {
  static final JsonMapper MAPPER = JsonMapper.builder().build();

  static final String ID = "0123456789abcdef0123456789abcdef";
  static final String PARENT = "fedcba9876543210fedcba9876543210";
  static final String INBOX = "ops.inbox.00112233445566778899aabbccddeeff";

  private CallEventFixtures() {}

  static JsonNode json(String text) {
    return MAPPER.readTree(text);
  }

  static ResponseEnvelope<JsonNode> envelope(String json) {
    return Envelopes.fromJson(json(json));
  }

  static final String LOCAL_ENVELOPE =
      "{\"data\": {\"n\": 1}, \"meta\": {\"source\": \"local\", \"operationId\": \"demo.count\","
          + " \"timestamp\": 1747000000000}}";

  static final String HTTP_ENVELOPE =
      "{\"data\": \"part\", \"meta\": {\"source\": \"http\", \"statusCode\": 206, \"headers\":"
          + " {\"content-range\": \"bytes 0-3/10\"}, \"contentType\": \"text/plain\"}}";

  static final String MCP_ENVELOPE =
      "{\"data\": null, \"meta\": {\"source\": \"mcp\", \"isError\": true, \"content\": ["
          + "{\"type\": \"text\", \"text\": \"boom\"},"
          + " {\"type\": \"image\", \"data\": \"aGk=\", \"mimeType\": \"image/png\"},"
          + " {\"type\": \"video\", \"url\": \"v.mp4\"}],"
          + " \"structuredContent\": {\"ok\": false}, \"_meta\": {\"trace\": \"t1\"}}}";

  /** One event per kind and optional-field combination. */
  static List<CallEvent> all() {
    List<CallEvent> events = new ArrayList<>();
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    events.add(
        new CallEvent.Requested(
            ID,
            "demo.echo",
            nodes.nullNode(),
            Optional.empty(),
            Optional.empty(),
            OptionalLong.empty(),
            Optional.empty(),
            OptionalLong.empty()));
    events.add(
        new CallEvent.Requested(
            ID,
            "demo.sub.part-2",
            json("{\"message\": \"hi\", \"list\": [1, 2.5, true, null, \"x\"], \"é\": \"ü\"}"),
            Optional.of(PARENT),
            Optional.of(new Identity("alice", Set.of("read", "write"))),
            OptionalLong.of(30_000),
            Optional.of(INBOX),
            OptionalLong.of(16)));
    events.add(
        new CallEvent.Requested(
            "req:1.a_b-c",
            "demo.echo",
            json("[1, 2, 3]"),
            Optional.empty(),
            Optional.of(Identity.anonymous()),
            OptionalLong.of(0),
            Optional.of("_INBOX/x@y:z"),
            OptionalLong.of(Long.MAX_VALUE)));
    events.add(new CallEvent.Responded(ID, envelope(LOCAL_ENVELOPE)));
    events.add(new CallEvent.Responded(ID, envelope(HTTP_ENVELOPE)));
    events.add(new CallEvent.Responded(ID, envelope(MCP_ENVELOPE)));
    for (ErrorCode code : ErrorCode.values()) {
      events.add(
          new CallEvent.Failed(
              ID, code, "It failed: " + code, code.retryableByDefault(), Optional.empty()));
    }
    events.add(
        new CallEvent.Failed(
            ID,
            ErrorCode.INVALID_INPUT,
            "Invalid input",
            true,
            Optional.of(json("{\"errors\": [{\"instancePath\": \"/n\", \"message\": \"bad\"}]}"))));
    events.add(new CallEvent.Completed(ID));
    events.add(new CallEvent.Aborted(ID, Optional.empty()));
    events.add(new CallEvent.Aborted(ID, Optional.of("the subscriber cancelled")));
    events.add(new CallEvent.Demand(ID, 1));
    events.add(new CallEvent.Demand(ID, Long.MAX_VALUE));
    events.add(new CallEvent.Alive(INBOX));
    events.add(new CallEvent.Alive("ops.inbox.node-7:worker_2.a"));
    return events;
  }

  /** A valid call.requested with the header fields first and {@code input} spliced in. */
  static String requestWithInput(String input) {
    return "{\"v\": 1, \"type\": \"call.requested\", \"requestId\": \""
        + ID
        + "\", \"replyTo\": \""
        + INBOX
        + "\", \"operationId\": \"demo.echo\", \"input\": "
        + input
        + "}";
  }

  static final String REQUEST = requestWithInput("{\"message\": \"hi\"}");

  static final String RESPONDED =
      "{\"v\": 1, \"type\": \"call.responded\", \"requestId\": \""
          + ID
          + "\", \"output\": "
          + LOCAL_ENVELOPE
          + "}";

  static final String ERROR =
      "{\"v\": 1, \"type\": \"call.error\", \"requestId\": \""
          + ID
          + "\", \"error\": {\"code\": \"CANCELLED\", \"message\": \"Cancelled\"}}";

  static final String ALIVE = "{\"v\": 1, \"type\": \"call.alive\", \"inbox\": \"" + INBOX + "\"}";

  static final String DEMAND =
      "{\"v\": 1, \"type\": \"call.demand\", \"requestId\": \"" + ID + "\", \"n\": 4}";

  static final String ABORTED =
      "{\"v\": 1, \"type\": \"call.aborted\", \"requestId\": \"" + ID + "\"}";

  /**
   * A malformed event that is valid JSON: the codec and the schema must both refuse it.
   *
   * @param fragment part of the PROTOCOL_ERROR's message
   * @param pointer the details' pointer
   * @param requestIdReadable whether the details carry the request id
   * @param replyToReadable whether they carry the reply topic
   */
  record Malformed(
      String name,
      String json,
      String fragment,
      String pointer,
      boolean requestIdReadable,
      boolean replyToReadable) {
    @Override
    public String toString() {
      return name;
    }
  }

  static String edit(String base, Consumer<ObjectNode> change) {
    ObjectNode node = (ObjectNode) json(base);
    change.accept(node);
    return node.toString();
  }

  private static Malformed request(
      String name, Consumer<ObjectNode> change, String fragment, String pointer, boolean replyTo) {
    return new Malformed(name, edit(REQUEST, change), fragment, pointer, true, replyTo);
  }

  private static Malformed badRequestId(String name, JsonNode requestId, String fragment) {
    return new Malformed(
        name,
        edit(REQUEST, e -> e.set("requestId", requestId)),
        fragment,
        "/requestId",
        false,
        false);
  }

  private static Malformed other(
      String name, String base, Consumer<ObjectNode> change, String fragment, String pointer) {
    return new Malformed(name, edit(base, change), fragment, pointer, true, false);
  }

  static List<Malformed> malformedJson() {
    JsonNodeFactory n = JsonNodeFactory.instance;
    List<Malformed> cases = new ArrayList<>();
    String idMessage = "\"requestId\" must be 1 to 128 letters";
    // version
    cases.add(
        request(
            "v missing",
            e -> e.remove("v"),
            "\"v\" (the protocol version) is missing",
            "/v",
            true));
    cases.add(
        request(
            "v null", e -> e.putNull("v"), "\"v\" (the protocol version) is missing", "/v", true));
    cases.add(
        request("v 2", e -> e.put("v", 2), "protocol version 2 is not supported", "/v", true));
    cases.add(
        request("v 0", e -> e.put("v", 0), "protocol version 0 is not supported", "/v", true));
    cases.add(
        request(
            "v 2^64+1",
            e -> e.put("v", new BigInteger("18446744073709551617")),
            "protocol version 18446744073709551617 is not supported",
            "/v",
            true));
    cases.add(
        request(
            "v string",
            e -> e.put("v", "1"),
            "must be an integer, was the string \"1\"",
            "/v",
            true));
    cases.add(
        request(
            "v 1.5", e -> e.put("v", 1.5), "must be an integer, was the number 1.5", "/v", true));
    // type
    cases.add(
        request(
            "type missing",
            e -> e.remove("type"),
            "\"type\" is missing or not a string",
            "/type",
            true));
    cases.add(
        request(
            "type number",
            e -> e.put("type", 3),
            "\"type\" is missing or not a string, was the number 3",
            "/type",
            true));
    cases.add(
        request(
            "type unknown",
            e -> e.put("type", "call.bogus"),
            "unknown event type \"call.bogus\"",
            "/type",
            true));
    cases.add(
        request(
            "type with control characters",
            e -> e.put("type", "call.\u0000x"),
            "unknown event type \"call.\\u0000x\"",
            "/type",
            true));
    // requestId
    cases.add(
        new Malformed(
            "requestId missing",
            edit(REQUEST, e -> e.remove("requestId")),
            "\"requestId\" is missing",
            "/requestId",
            false,
            false));
    cases.add(
        badRequestId(
            "requestId number",
            n.numberNode(42),
            "\"requestId\" is missing or not a string, was the number 42"));
    cases.add(badRequestId("requestId empty", n.stringNode(""), idMessage));
    cases.add(badRequestId("requestId 129 characters", n.stringNode("a".repeat(129)), idMessage));
    cases.add(badRequestId("requestId with spaces", n.stringNode("abc def"), idMessage));
    cases.add(
        badRequestId(
            "requestId with a control character", n.stringNode("abc\u0001def"), idMessage));
    cases.add(badRequestId("requestId with a newline", n.stringNode("abc\ndef"), idMessage));
    cases.add(badRequestId("requestId not ASCII", n.stringNode("r\u00e9q"), idMessage));
    cases.add(badRequestId("requestId with a wildcard", n.stringNode("abc*"), idMessage));
    // call.requested fields
    cases.add(
        request(
            "operationId missing",
            e -> e.remove("operationId"),
            "\"operationId\" is missing",
            "/operationId",
            true));
    cases.add(
        request(
            "operationId not a string",
            e -> e.set("operationId", n.arrayNode()),
            "\"operationId\" is missing or not a string, was an array",
            "/operationId",
            true));
    for (String id :
        List.of(
            "echo",
            "demo.",
            ".echo",
            "demo..echo",
            "demo.ec ho",
            "demo.echo*",
            "d\u00e9mo.echo",
            "a".repeat(65) + ".x",
            "demo." + "a".repeat(129))) {
      cases.add(
          request(
              "operationId " + (id.length() > 20 ? id.length() + " characters" : "'" + id + "'"),
              e -> e.put("operationId", id),
              "\"operationId\" must be namespace.name",
              "/operationId",
              true));
    }
    for (String topic :
        List.of("ops.inbox.*", "ops.>", "ops inbox", "", "ops.inbox.[ab]", "x".repeat(257))) {
      cases.add(
          request(
              "replyTo '" + (topic.length() > 20 ? topic.length() + " characters" : topic) + "'",
              e -> e.put("replyTo", topic),
              "\"replyTo\" must be 1 to 256 letters",
              "/replyTo",
              false));
    }
    cases.add(
        request(
            "replyTo number",
            e -> e.put("replyTo", 5),
            "\"replyTo\" must be a string, was the number 5",
            "/replyTo",
            false));
    cases.add(
        request(
            "parentRequestId with spaces",
            e -> e.put("parentRequestId", "a b"),
            "\"parentRequestId\" must be a request id",
            "/parentRequestId",
            true));
    cases.add(
        request(
            "parentRequestId number",
            e -> e.put("parentRequestId", 7),
            "\"parentRequestId\" must be a string",
            "/parentRequestId",
            true));
    cases.add(
        request(
            "deadlineMs negative",
            e -> e.put("deadlineMs", -1),
            "\"deadlineMs\" must be an integer from 0 to 2^63-1, was the number -1",
            "/deadlineMs",
            true));
    cases.add(
        request(
            "deadlineMs 1.5",
            e -> e.put("deadlineMs", 1.5),
            "\"deadlineMs\" must be an integer",
            "/deadlineMs",
            true));
    cases.add(
        request(
            "deadlineMs string",
            e -> e.put("deadlineMs", "100"),
            "\"deadlineMs\" must be an integer",
            "/deadlineMs",
            true));
    cases.add(
        request(
            "deadlineMs 2^63",
            e -> e.put("deadlineMs", new BigInteger("9223372036854775808")),
            "\"deadlineMs\" must be an integer",
            "/deadlineMs",
            true));
    cases.add(
        request(
            "demand 0",
            e -> e.put("demand", 0),
            "\"demand\" must be an integer from 1 to 2^63-1, was the number 0",
            "/demand",
            true));
    cases.add(
        request(
            "demand negative",
            e -> e.put("demand", -3),
            "\"demand\" must be an integer from 1",
            "/demand",
            true));
    cases.add(
        request(
            "identity a string",
            e -> e.put("identity", "alice"),
            "\"identity\" must be an object",
            "/identity",
            true));
    cases.add(
        request(
            "identity without subject",
            e -> e.putObject("identity"),
            "\"identity.subject\" is missing",
            "/identity/subject",
            true));
    cases.add(
        request(
            "identity with a blank subject",
            e -> e.putObject("identity").put("subject", "  "),
            "\"identity.subject\" must be 1 to 256 characters",
            "/identity/subject",
            true));
    cases.add(
        request(
            "identity with a 257-character subject",
            e -> e.putObject("identity").put("subject", "s".repeat(257)),
            "\"identity.subject\" must be 1 to 256 characters",
            "/identity/subject",
            true));
    cases.add(
        request(
            "identity with scopes a string",
            e -> e.putObject("identity").put("subject", "a").put("scopes", "read"),
            "\"identity.scopes\" must be an array",
            "/identity/scopes",
            true));
    cases.add(
        request(
            "identity with non-string scopes",
            e -> e.putObject("identity").put("subject", "a").putArray("scopes").add(1).add(true),
            "item 0 is the number 1",
            "/identity/scopes/0",
            true));
    cases.add(
        request(
            "identity with a blank scope",
            e ->
                e.putObject("identity").put("subject", "a").putArray("scopes").add("read").add(" "),
            "item 1 is the string \" \"",
            "/identity/scopes/1",
            true));
    cases.add(
        request(
            "identity with 1025 scopes",
            e -> {
              ArrayNode scopes = e.putObject("identity").put("subject", "a").putArray("scopes");
              for (int i = 0; i < 1025; i++) {
                scopes.add("s" + i);
              }
            },
            "at most 1024 strings",
            "/identity/scopes",
            true));
    // call.responded
    cases.add(
        other(
            "output missing",
            RESPONDED,
            e -> e.remove("output"),
            "\"output\" (the response envelope) is missing",
            "/output"));
    cases.add(
        other(
            "output a string",
            RESPONDED,
            e -> e.put("output", "hi"),
            "\"output\" is not a response envelope",
            "/output"));
    cases.add(
        other(
            "output without meta",
            RESPONDED,
            e -> e.putObject("output").put("data", 1),
            "\"output\" is not a response envelope",
            "/output/meta"));
    cases.add(
        other(
            "output without data",
            RESPONDED,
            e -> ((ObjectNode) e.get("output")).remove("data"),
            "\"output\" is not a response envelope",
            "/output/data"));
    cases.add(
        other(
            "output with an unknown source",
            RESPONDED,
            e -> ((ObjectNode) e.get("output").get("meta")).put("source", "ftp"),
            "\"ftp\"",
            "/output/meta/source"));
    cases.add(
        other(
            "output with a bad status code",
            RESPONDED,
            e ->
                e.set(
                    "output",
                    json(
                        "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": \"200\", \"headers\": {}, \"contentType\": \"text/plain\"}}")),
            "\"output\" is not a response envelope",
            "/output/meta/statusCode"));
    // call.error
    cases.add(
        other(
            "error missing",
            ERROR,
            e -> e.remove("error"),
            "\"error\" must be an object with code and message, was absent",
            "/error"));
    cases.add(
        other(
            "error a string",
            ERROR,
            e -> e.put("error", "boom"),
            "\"error\" must be an object",
            "/error"));
    cases.add(
        other(
            "error without code",
            ERROR,
            e -> ((ObjectNode) e.get("error")).remove("code"),
            "\"error.code\" is missing",
            "/error/code"));
    cases.add(
        other(
            "error code a number",
            ERROR,
            e -> ((ObjectNode) e.get("error")).put("code", 5),
            "\"error.code\" is missing or not a string",
            "/error/code"));
    cases.add(
        other(
            "error without message",
            ERROR,
            e -> ((ObjectNode) e.get("error")).remove("message"),
            "\"error.message\" is missing",
            "/error/message"));
    cases.add(
        other(
            "error retryable a string",
            ERROR,
            e -> ((ObjectNode) e.get("error")).put("retryable", "yes"),
            "\"error.retryable\" must be a boolean",
            "/error/retryable"));
    // call.demand, call.aborted
    cases.add(
        other(
            "demand n 0",
            DEMAND,
            e -> e.put("n", 0),
            "\"n\" must be an integer from 1 to 2^63-1, was the number 0",
            "/n"));
    cases.add(
        other(
            "demand n negative",
            DEMAND,
            e -> e.put("n", -1),
            "\"n\" must be an integer from 1",
            "/n"));
    cases.add(
        other(
            "demand n missing",
            DEMAND,
            e -> e.remove("n"),
            "\"n\" must be an integer from 1 to 2^63-1, was absent",
            "/n"));
    cases.add(
        other("demand n 1.5", DEMAND, e -> e.put("n", 1.5), "\"n\" must be an integer", "/n"));
    cases.add(
        other(
            "demand n 2^63",
            DEMAND,
            e -> e.put("n", new BigInteger("9223372036854775808")),
            "\"n\" must be an integer",
            "/n"));
    cases.add(
        other(
            "aborted reason a number",
            ABORTED,
            e -> e.put("reason", 5),
            "\"reason\" must be a string",
            "/reason"));
    // call.alive: no requestId, an inbox topic
    for (String inbox : List.of("ops.ctl", "ops.req.demo.echo", "ops.inbox.", "ops.inbox.a b")) {
      cases.add(
          new Malformed(
              "alive inbox " + inbox,
              edit(ALIVE, e -> e.put("inbox", inbox)),
              "\"inbox\" must be ops.inbox. followed by 1 to 128 letters",
              "/inbox",
              false,
              false));
    }
    cases.add(
        new Malformed(
            "alive inbox missing",
            edit(ALIVE, e -> e.remove("inbox")),
            "\"inbox\" is missing or not a string",
            "/inbox",
            false,
            false));
    // not an object
    cases.add(
        new Malformed(
            "an array",
            "[" + REQUEST + "]",
            "an event must be a JSON object, was an array",
            "",
            false,
            false));
    cases.add(
        new Malformed(
            "a string",
            "\"call.requested\"",
            "an event must be a JSON object, was the string",
            "",
            false,
            false));
    cases.add(
        new Malformed(
            "a number", "1", "an event must be a JSON object, was the number 1", "", false, false));
    cases.add(
        new Malformed(
            "null", "null", "an event must be a JSON object, was null", "", false, false));
    return cases;
  }
}
