package dev.alkdev.operations.protocol;

import static dev.alkdev.operations.protocol.CallEventFixtures.ID;
import static dev.alkdev.operations.protocol.CallEventFixtures.INBOX;
import static dev.alkdev.operations.protocol.CallEventFixtures.PARENT;
import static dev.alkdev.operations.protocol.CallEventFixtures.REQUEST;
import static dev.alkdev.operations.protocol.CallEventFixtures.edit;
import static dev.alkdev.operations.protocol.CallEventFixtures.json;
import static dev.alkdev.operations.protocol.CallEventFixtures.requestWithInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.schema.SchemaError;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

class CallEventsTest {
  static final int MAX = CallEvents.DEFAULT_MAX_MESSAGE_BYTES;

  static List<CallEvent> events() {
    return CallEventFixtures.all();
  }

  static List<CallEventFixtures.Malformed> malformed() {
    return CallEventFixtures.malformedJson();
  }

  static CallEvent decode(String json) {
    return CallEvents.decode(json.getBytes(StandardCharsets.UTF_8), MAX);
  }

  /** The PROTOCOL_ERROR that decoding {@code bytes} raises. */
  static CallError protocolError(byte[] bytes, int max) {
    Throwable thrown = catchThrowable(() -> CallEvents.decode(bytes, max));
    assertThat(thrown).isInstanceOf(CallError.class);
    CallError error = (CallError) thrown;
    assertThat(error.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
    assertThat(error.retryable()).isFalse();
    assertThat(error.getMessage()).startsWith("Malformed call event: ");
    return error;
  }

  static CallError protocolError(String json) {
    return protocolError(json.getBytes(StandardCharsets.UTF_8), MAX);
  }

  @Nested
  class RoundTrip {
    @ParameterizedTest
    @MethodSource("dev.alkdev.operations.protocol.CallEventsTest#events")
    void encodeThenDecodeGivesTheSameEvent(CallEvent event) {
      byte[] bytes = CallEvents.encode(event);
      assertThat(CallEvents.decode(bytes, MAX)).isEqualTo(event);
      assertThat(CallEvents.fromJson(CallEvents.toJson(event))).isEqualTo(event);
    }

    @ParameterizedTest
    @MethodSource("dev.alkdev.operations.protocol.CallEventsTest#events")
    void everyEventStartsWithVersionTypeAndRequestId(CallEvent event) {
      List<String> names = new ArrayList<>();
      CallEvents.toJson(event).propertyNames().forEach(names::add);
      // call.alive belongs to no call: its inbox takes the request id's place.
      assertThat(names)
          .startsWith("v", "type", event instanceof CallEvent.Alive ? "inbox" : "requestId");
      assertThat(CallEvents.toJson(event).get("v").asInt()).isEqualTo(1);
      assertThat(CallEvents.toJson(event).get("type").asString()).isEqualTo(event.type());
    }

    @Test
    void aRequestPutsItsReplyTopicBeforeItsInput() {
      CallEvent.Requested full = (CallEvent.Requested) CallEventFixtures.all().get(1);
      List<String> names = new ArrayList<>();
      CallEvents.toJson(full).propertyNames().forEach(names::add);
      assertThat(names)
          .containsExactly(
              "v",
              "type",
              "requestId",
              "replyTo",
              "operationId",
              "parentRequestId",
              "identity",
              "deadlineMs",
              "demand",
              "input");
    }

    @Test
    void theMinimalRequestIsExactlyThis() {
      CallEvent.Requested minimal = (CallEvent.Requested) CallEventFixtures.all().get(0);
      assertThat(new String(CallEvents.encode(minimal), StandardCharsets.UTF_8))
          .isEqualTo(
              "{\"v\":1,\"type\":\"call.requested\",\"requestId\":\""
                  + ID
                  + "\",\"operationId\":\"demo.echo\",\"input\":null}");
    }

    @Test
    void identityScopesAreWrittenSorted() {
      CallEvent.Requested request =
          new CallEvent.Requested(
              ID,
              "demo.echo",
              JsonNodeFactory.instance.nullNode(),
              Optional.empty(),
              Optional.of(Identity.of("bob", "z", "a", "m")),
              OptionalLong.empty(),
              Optional.empty(),
              OptionalLong.empty());
      assertThat(CallEvents.toJson(request).get("identity"))
          .isEqualTo(json("{\"subject\": \"bob\", \"scopes\": [\"a\", \"m\", \"z\"]}"));
    }

    @Test
    void anAbsentInputReadsAsNull() {
      CallEvent.Requested request =
          (CallEvent.Requested) decode(edit(REQUEST, e -> e.remove("input")));
      assertThat(request.input().isNull()).isTrue();
    }

    @Test
    void optionalFieldsSetToNullCountAsAbsent() {
      String json =
          edit(
              REQUEST,
              e ->
                  e.putNull("replyTo")
                      .putNull("parentRequestId")
                      .putNull("identity")
                      .putNull("deadlineMs")
                      .putNull("demand"));
      CallEvent.Requested request = (CallEvent.Requested) decode(json);
      assertThat(request.replyTo()).isEmpty();
      assertThat(request.parentRequestId()).isEmpty();
      assertThat(request.identity()).isEmpty();
      assertThat(request.deadlineMillis()).isEmpty();
      assertThat(request.demand()).isEmpty();

      CallEvent.Failed failed =
          (CallEvent.Failed)
              decode(
                  "{\"v\": 1, \"type\": \"call.error\", \"requestId\": \""
                      + ID
                      + "\", \"error\": {\"code\": \"UNAVAILABLE\", \"message\": \"m\","
                      + " \"retryable\": null, \"details\": null}}");
      assertThat(failed.retryable()).isTrue(); // UNAVAILABLE's default
      assertThat(failed.details()).isEmpty();

      assertThat(
              decode(
                  "{\"v\": 1, \"type\": \"call.aborted\", \"requestId\": \""
                      + ID
                      + "\", \"reason\": null}"))
          .isEqualTo(new CallEvent.Aborted(ID, Optional.empty()));

      CallEvent.Requested noScopes =
          (CallEvent.Requested)
              decode(
                  edit(
                      REQUEST, e -> e.putObject("identity").put("subject", "a").putNull("scopes")));
      assertThat(noScopes.identity()).contains(new Identity("a", Set.of()));
    }

    @Test
    void integersMayBeWrittenWithAFractionOfZero() {
      // JSON Schema counts 1.0 as an integer; so does the reader.
      CallEvent.Requested request =
          (CallEvent.Requested)
              decode(
                  edit(REQUEST, e -> e.put("v", 1.0).put("deadlineMs", 250.0).put("demand", 2.0)));
      assertThat(request.deadlineMillis()).hasValue(250);
      assertThat(request.demand()).hasValue(2);
    }

    @Test
    void aRetryableFlagOverridesTheCodesDefault() {
      CallEvent.Failed failed =
          (CallEvent.Failed)
              decode(
                  "{\"v\": 1, \"type\": \"call.error\", \"requestId\": \""
                      + ID
                      + "\", \"error\": {\"code\": \"EXECUTION_ERROR\", \"message\": \"m\","
                      + " \"retryable\": true}}");
      assertThat(failed.retryable()).isTrue();
    }

    @Test
    void aUtf8ByteOrderMarkIsIgnored() {
      byte[] json = REQUEST.getBytes(StandardCharsets.UTF_8);
      byte[] withBom = new byte[json.length + 3];
      withBom[0] = (byte) 0xEF;
      withBom[1] = (byte) 0xBB;
      withBom[2] = (byte) 0xBF;
      System.arraycopy(json, 0, withBom, 3, json.length);
      assertThat(CallEvents.decode(withBom, MAX)).isEqualTo(decode(REQUEST));
    }

    @Test
    void aMessageOfExactlyTheLimitIsRead() {
      byte[] bytes = REQUEST.getBytes(StandardCharsets.UTF_8);
      assertThat(CallEvents.decode(bytes, bytes.length)).isEqualTo(decode(REQUEST));
    }
  }

  @Nested
  class UnknownFields {
    @ParameterizedTest
    @MethodSource("dev.alkdev.operations.protocol.CallEventsTest#events")
    void areIgnoredEverywhere(CallEvent event) {
      ObjectNode json = CallEvents.toJson(event);
      json.putObject("future").putArray("list").add(1);
      json.put("trace", "t-1");
      if (json.has("identity")) {
        ((ObjectNode) json.get("identity")).put("tenant", "acme");
      }
      if (json.has("error")) {
        ((ObjectNode) json.get("error")).put("hint", "try later");
      }
      if (json.has("output")) {
        ((ObjectNode) json.get("output")).put("__envelopeVersion", 2);
      }
      assertThat(decode(json.toString())).isEqualTo(event);
    }
  }

  @Nested
  class Malformed {
    @ParameterizedTest
    @MethodSource("dev.alkdev.operations.protocol.CallEventsTest#malformed")
    void isAProtocolErrorThatSaysWhatIsWrong(CallEventFixtures.Malformed c) {
      CallError error = protocolError(c.json());
      assertThat(error.getMessage()).contains(c.fragment());
      JsonNode details = error.details().orElseThrow();
      assertThat(details.get("pointer").asString()).isEqualTo(c.pointer());
      if (c.requestIdReadable()) {
        assertThat(CallEvents.readableRequestId(error)).contains(ID);
      } else {
        assertThat(CallEvents.readableRequestId(error)).isEmpty();
      }
      if (c.replyToReadable()) {
        assertThat(CallEvents.readableReplyTo(error)).contains(INBOX);
      } else {
        assertThat(CallEvents.readableReplyTo(error)).isEmpty();
      }
    }

    @Test
    void aNewerVersionListsTheVersionsThisSideSpeaks() {
      CallError error = protocolError(edit(REQUEST, e -> e.put("v", 2)));
      assertThat(error.details().orElseThrow().get("supportedVersions")).isEqualTo(json("[1]"));
    }

    @Test
    void hostileTextInMessagesIsCutAndEscaped() {
      CallError error = protocolError(edit(REQUEST, e -> e.put("type", "x\n".repeat(10_000))));
      assertThat(error.getMessage()).hasSizeLessThan(400).doesNotContain("\n");
    }

    @Test
    void anErrorWithAnUnknownCodeIsAnExecutionErrorThatKeepsItsMessage() {
      CallEvent.Failed failed =
          (CallEvent.Failed)
              decode(
                  "{\"v\": 1, \"type\": \"call.error\", \"requestId\": \""
                      + ID
                      + "\", \"error\": {\"code\": \"QUOTA_EXCEEDED\", \"message\": \"Out of"
                      + " quota\", \"details\": {\"limit\": 5}}}");
      assertThat(failed.code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
      assertThat(failed.message()).isEqualTo("Out of quota");
      assertThat(failed.retryable()).isFalse();
      assertThat(failed.details()).contains(json("{\"limit\": 5}"));
    }

    @Test
    void errorCodesAreMatchedWhateverTheirCase() {
      CallEvent.Failed failed =
          (CallEvent.Failed)
              decode(
                  "{\"v\": 1, \"type\": \"call.error\", \"requestId\": \""
                      + ID
                      + "\", \"error\": {\"code\": \"no_responders\", \"message\": \"m\"}}");
      assertThat(failed.code()).isEqualTo(ErrorCode.NO_RESPONDERS);
      assertThat(failed.retryable()).isTrue();
    }

    @Test
    void notJson() {
      CallError error = protocolError("hello");
      assertThat(error.getMessage()).contains("message is not valid JSON");
      assertThat(error.details().orElseThrow().size()).isZero();
    }

    @Test
    void anEmptyMessage() {
      assertThat(protocolError(new byte[0], MAX).getMessage()).contains("message is empty");
      assertThat(protocolError(" \n\t ").getMessage()).contains("message is empty");
    }

    @Test
    void aTruncatedRequestIsAnsweredWhenItsHeaderIsReadable() {
      String cut = REQUEST.substring(0, REQUEST.indexOf("\"input\"") + 12);
      CallError error = protocolError(cut);
      assertThat(error.getMessage()).contains("message is not valid JSON");
      assertThat(CallEvents.readableRequestId(error)).contains(ID);
      assertThat(CallEvents.readableReplyTo(error)).contains(INBOX);
    }

    @Test
    void trailingDataAfterTheEvent() {
      CallError error = protocolError(REQUEST + " {}");
      assertThat(error.getMessage()).contains("message is not valid JSON");
      assertThat(CallEvents.readableRequestId(error)).contains(ID);
    }

    @Test
    void duplicateNamesAreRefused() {
      String twice = REQUEST.replace("{\"v\": 1,", "{\"v\": 1, \"v\": 1,");
      assertThat(protocolError(twice).getMessage()).contains("Duplicate");
      String nested = requestWithInput("{\"a\": 1, \"a\": 2}");
      assertThat(protocolError(nested).getMessage()).contains("Duplicate");
    }

    @Test
    void invalidUtf8() {
      byte[] bytes = requestWithInput("\"caf\u00e9\"").getBytes(StandardCharsets.UTF_8);
      int at = indexOf(bytes, (byte) 0xC3);
      bytes[at + 1] = '('; // 0xC3 0x28: a lead byte without its continuation
      CallError error = protocolError(bytes, MAX);
      assertThat(error.getMessage()).contains("not valid JSON").contains("UTF-8");
      // The header comes before the damage, so the sender can be told.
      assertThat(CallEvents.readableRequestId(error)).contains(ID);
      assertThat(CallEvents.readableReplyTo(error)).contains(INBOX);

      byte[] start = REQUEST.getBytes(StandardCharsets.UTF_8);
      start[REQUEST.indexOf("hi")] = (byte) 0xFF;
      assertThat(protocolError(start, MAX).getMessage()).contains("UTF-8");
    }

    @Test
    void utf16AndUtf32AreRefused() {
      for (String charset : List.of("UTF-16BE", "UTF-16LE", "UTF-16", "UTF-32BE", "UTF-32LE")) {
        byte[] bytes = REQUEST.getBytes(java.nio.charset.Charset.forName(charset));
        assertThat(protocolError(bytes, MAX).getMessage())
            .as(charset)
            .contains("message is not UTF-8");
      }
    }

    @Test
    void anOversizedMessageIsRefusedBeforeItIsParsed() {
      String big = requestWithInput("\"" + "x".repeat(5_000) + "\"");
      CallError error = protocolError(big.getBytes(StandardCharsets.UTF_8), 1_000);
      assertThat(error.getMessage())
          .contains("message is " + big.length() + " bytes, more than the limit of 1000");
      // Its header is within the first bytes, so the sender can be told.
      assertThat(CallEvents.readableRequestId(error)).contains(ID);
      assertThat(CallEvents.readableReplyTo(error)).contains(INBOX);
    }

    @Test
    void anOversizedMessageWhoseHeaderComesLateCannotBeAnswered() {
      String late =
          "{\"input\": \""
              + "x".repeat(CallEvents.SALVAGE_BYTES)
              + "\", \"v\": 1, \"type\": \"call.requested\", \"requestId\": \""
              + ID
              + "\", \"replyTo\": \""
              + INBOX
              + "\", \"operationId\": \"demo.echo\"}";
      CallError error = protocolError(late.getBytes(StandardCharsets.UTF_8), 1_000);
      assertThat(CallEvents.readableRequestId(error)).isEmpty();
      assertThat(decode(late)).isInstanceOf(CallEvent.Requested.class); // fine under the limit
    }

    @Test
    void deepNestingIsAProtocolErrorNotAStackOverflow() {
      String deep = "[".repeat(10_000) + "]".repeat(10_000);
      CallError error = protocolError(requestWithInput(deep));
      assertThat(error.getMessage()).contains("not valid JSON").contains("nesting depth");
      assertThat(CallEvents.readableRequestId(error)).contains(ID);
      assertThat(CallEvents.readableReplyTo(error)).contains(INBOX);

      String objects = "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000);
      assertThat(protocolError(objects).getMessage()).contains("nesting depth");
      String unclosed = "[".repeat(100_000);
      assertThat(protocolError(unclosed).getMessage()).contains("not valid JSON");
    }

    @Test
    void theNestingLimitCountsTheEventItself() {
      int inside = CallEvents.MAX_NESTING_DEPTH - 1; // the event object is the first level
      String deepest = requestWithInput("[".repeat(inside) + "]".repeat(inside));
      assertThat(decode(deepest)).isInstanceOf(CallEvent.Requested.class);
      String deeper = requestWithInput("[".repeat(inside + 1) + "]".repeat(inside + 1));
      assertThat(protocolError(deeper).getMessage()).contains("nesting depth");
    }

    @Test
    void aHugeNumberIsAProtocolError() {
      assertThat(protocolError(requestWithInput("1" + "0".repeat(5_000))).getMessage())
          .contains("not valid JSON");
      CallError version =
          protocolError(edit(REQUEST, e -> e.put("v", new java.math.BigDecimal("1e400"))));
      assertThat(version.details().orElseThrow().get("pointer").asString()).isEqualTo("/v");
    }

    @Test
    void randomDamageNeverEscapesAsAnythingButAProtocolError() {
      Random random = new Random(4);
      int decoded = 0;
      for (CallEvent event : CallEventFixtures.all()) {
        byte[] original = CallEvents.encode(event);
        for (int i = 0; i < 400; i++) {
          byte[] bytes = damage(original, random);
          try {
            CallEvents.decode(bytes, MAX);
            decoded++;
          } catch (CallError e) {
            assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
          } catch (Throwable t) {
            fail("decoding " + Arrays.toString(bytes) + " threw " + t, t);
          }
        }
      }
      assertThat(decoded).isPositive(); // some damage is harmless (inside a string, say)
    }

    private static byte[] damage(byte[] original, Random random) {
      byte[] bytes = original.clone();
      switch (random.nextInt(4)) {
        case 0 -> bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
        case 1 -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length));
        case 2 -> {
          int at = random.nextInt(bytes.length);
          bytes[at] = (byte) "{}[]\",:0-.e\\ ".charAt(random.nextInt(13));
        }
        default -> {
          int from = random.nextInt(bytes.length);
          int to = random.nextInt(bytes.length);
          byte b = bytes[from];
          bytes[from] = bytes[to];
          bytes[to] = b;
        }
      }
      return bytes;
    }

    private static int indexOf(byte[] bytes, byte b) {
      for (int i = 0; i < bytes.length; i++) {
        if (bytes[i] == b) {
          return i;
        }
      }
      throw new AssertionError("no byte " + b);
    }
  }

  @Nested
  class Writing {
    @Test
    void anEventTooDeepForAnyReaderIsNotWritten() {
      int inside = CallEvents.MAX_NESTING_DEPTH - 1;
      CallEvent.Requested ok = request(nested(inside));
      assertThat(CallEvents.decode(CallEvents.encode(ok), MAX)).isEqualTo(ok);

      CallEvent.Requested tooDeep = request(nested(inside + 1));
      Throwable thrown = catchThrowable(() -> CallEvents.encode(tooDeep));
      assertThat(thrown).isInstanceOf(CallError.class);
      assertThat(((CallError) thrown).code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(((CallError) thrown).retryable()).isFalse();
      assertThat(thrown.getMessage())
          .contains("call.requested event nests deeper than the protocol's limit of 256");
    }

    @Test
    void aReplyTooLargeForTheTransportBecomesAResourceExhaustedError() {
      CallEvent.Responded big =
          new CallEvent.Responded(
              ID,
              Envelopes.localEnvelope(
                  (JsonNode) JsonNodeFactory.instance.stringNode("x".repeat(10_000)), "demo.big"));
      EventWriter.Reply reply = EventWriter.encodeReply(big, 2_000);
      assertThat(reply.bytes().length).isLessThanOrEqualTo(2_000);
      CallEvent.Failed sent = (CallEvent.Failed) CallEvents.decode(reply.bytes(), 2_000);
      assertThat(sent.requestId()).isEqualTo(ID);
      assertThat(sent.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(sent.message()).contains("more than the transport carries (2000)");
      assertThat(sent.retryable()).isFalse();
      assertThat(reply.replaced()).isPresent();
    }

    @Test
    void anErrorTooLargeForTheTransportIsCutToFit() {
      CallEvent.Failed big =
          new CallEvent.Failed(
              ID,
              ErrorCode.ACCESS_DENIED,
              "no ".repeat(5_000),
              false,
              Optional.of(json("{\"huge\": \"" + "d".repeat(5_000) + "\"}")));
      EventWriter.Reply reply = EventWriter.encodeReply(big, 2_000);
      CallEvent.Failed sent = (CallEvent.Failed) CallEvents.decode(reply.bytes(), 2_000);
      assertThat(sent.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(sent.message()).hasSize(1024).startsWith("no no").endsWith("...");
      assertThat(sent.details()).isEmpty();
    }

    @Test
    void aReplyTooDeepIsAnErrorToo() {
      CallEvent.Responded deep =
          new CallEvent.Responded(
              ID, Envelopes.localEnvelope(nested(CallEvents.MAX_NESTING_DEPTH), "demo.deep"));
      EventWriter.Reply reply = EventWriter.encodeReply(deep, MAX);
      CallEvent.Failed sent = (CallEvent.Failed) CallEvents.decode(reply.bytes(), MAX);
      assertThat(sent.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(sent.message()).contains("nests deeper");
    }

    @ParameterizedTest
    @MethodSource("dev.alkdev.operations.protocol.CallEventsTest#events")
    void aReplyThatFitsIsSentAsItIs(CallEvent event) {
      assumeTrue(event instanceof CallEvent.CallScoped, "only a call's events are replies");
      EventWriter.Reply reply = EventWriter.encodeReply((CallEvent.CallScoped) event, MAX);
      assertThat(reply.bytes()).isEqualTo(CallEvents.encode(event));
      assertThat(reply.replaced()).isEmpty();
    }

    private static CallEvent.Requested request(JsonNode input) {
      return new CallEvent.Requested(
          ID,
          "demo.echo",
          input,
          Optional.empty(),
          Optional.empty(),
          OptionalLong.empty(),
          Optional.of(INBOX),
          OptionalLong.empty());
    }

    /** Arrays nested {@code depth} levels deep. */
    private static JsonNode nested(int depth) {
      JsonNode node = JsonNodeFactory.instance.arrayNode();
      for (int i = 1; i < depth; i++) {
        node = JsonNodeFactory.instance.arrayNode().add(node);
      }
      return node;
    }
  }

  @Nested
  class Errors {
    @Test
    void onlyCodeMessageRetryableAndDetailsCrossTheWire() {
      CallError error =
          CallError.builder(ErrorCode.UNAVAILABLE, "Down for maintenance")
              .retryable(false)
              .details(json("{\"until\": \"10:00\"}"))
              .cause(new IllegalStateException("secret internals"))
              .build();
      CallEvent.Failed failed = CallEvents.failed(ID, error);
      String wire = new String(CallEvents.encode(failed), StandardCharsets.UTF_8);
      assertThat(wire).doesNotContain("secret").doesNotContain("IllegalStateException");
      assertThat(CallEvents.toJson(failed).get("error"))
          .isEqualTo(
              json(
                  "{\"code\": \"UNAVAILABLE\", \"message\": \"Down for maintenance\","
                      + " \"retryable\": false, \"details\": {\"until\": \"10:00\"}}"));
      CallError back =
          CallEvents.toCallError(
              (CallEvent.Failed) CallEvents.decode(wire.getBytes(StandardCharsets.UTF_8), MAX));
      assertThat(back.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(back.getMessage()).isEqualTo("Down for maintenance");
      assertThat(back.retryable()).isFalse();
      assertThat(back.details()).contains(json("{\"until\": \"10:00\"}"));
      assertThat(back.getCause()).isNull();
    }

    @Test
    void schemaErrorsOfInvalidInputTravelInTheDetails() {
      List<SchemaError> errors =
          List.of(
              new SchemaError("/n", "type", "must be an integer"),
              new SchemaError("", "required", "\"name\" is missing"));
      CallEvent.Failed failed = CallEvents.failed(ID, CallError.invalid("input of demo.x", errors));
      assertThat(failed.details().orElseThrow())
          .isEqualTo(
              json(
                  "{\"errors\": [{\"instancePath\": \"/n\", \"keyword\": \"type\", \"message\":"
                      + " \"must be an integer\"}, {\"instancePath\": \"\", \"keyword\":"
                      + " \"required\", \"message\": \"\\\"name\\\" is missing\"}]}"));
      CallError back =
          CallEvents.toCallError(
              (CallEvent.Failed) CallEvents.decode(CallEvents.encode(failed), MAX));
      assertThat(back.code()).isEqualTo(ErrorCode.INVALID_INPUT);
      assertThat(back.validationErrors()).isEqualTo(errors);
    }

    @Test
    void atMostAHundredSchemaErrorsAreSent() {
      List<SchemaError> errors = new ArrayList<>();
      for (int i = 0; i < 150; i++) {
        errors.add(new SchemaError("/" + i, "type", "wrong"));
      }
      JsonNode details =
          CallEvents.failed(ID, CallError.invalid("input", errors)).details().orElseThrow();
      assertThat(details.get("errors").size()).isEqualTo(100);
      assertThat(details.get("truncated").asBoolean()).isTrue();
    }

    @Test
    void detailsOfTheErrorWinOverSchemaErrors() {
      CallError error =
          CallError.builder(ErrorCode.INVALID_INPUT, "bad")
              .details(json("{\"field\": \"n\"}"))
              .validationErrors(List.of(new SchemaError("/n", "type", "wrong")))
              .build();
      assertThat(CallEvents.failed(ID, error).details()).contains(json("{\"field\": \"n\"}"));
    }
  }

  @Nested
  class Constructors {
    @Test
    void refuseWhatTheWireCannotCarry() {
      JsonNode input = JsonNodeFactory.instance.nullNode();
      assertThatThrownBy(() -> new CallEvent.Completed("has space"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Not a valid request id: 'has space'");
      assertThatThrownBy(() -> new CallEvent.Demand(ID, 0))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> new CallEvent.Aborted("", Optional.empty()))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(
              () ->
                  new CallEvent.Requested(
                      ID,
                      "nodot",
                      input,
                      Optional.empty(),
                      Optional.empty(),
                      OptionalLong.empty(),
                      Optional.empty(),
                      OptionalLong.empty()))
          .hasMessageContaining("Not a valid operation id");
      assertThatThrownBy(
              () ->
                  new CallEvent.Requested(
                      ID,
                      "demo.echo",
                      input,
                      Optional.of("bad parent"),
                      Optional.empty(),
                      OptionalLong.empty(),
                      Optional.empty(),
                      OptionalLong.empty()))
          .hasMessageContaining("Not a valid request id");
      assertThatThrownBy(
              () ->
                  new CallEvent.Requested(
                      ID,
                      "demo.echo",
                      input,
                      Optional.empty(),
                      Optional.empty(),
                      OptionalLong.empty(),
                      Optional.of("ops.inbox.>"),
                      OptionalLong.empty()))
          .hasMessageContaining("Not a valid reply topic");
      assertThatThrownBy(
              () ->
                  new CallEvent.Requested(
                      ID,
                      "demo.echo",
                      input,
                      Optional.empty(),
                      Optional.empty(),
                      OptionalLong.of(-1),
                      Optional.empty(),
                      OptionalLong.empty()))
          .hasMessageContaining("deadlineMillis must not be negative");
      assertThatThrownBy(
              () ->
                  new CallEvent.Requested(
                      ID,
                      "demo.echo",
                      input,
                      Optional.empty(),
                      Optional.empty(),
                      OptionalLong.empty(),
                      Optional.empty(),
                      OptionalLong.of(0)))
          .hasMessageContaining("demand must be positive");
      assertThatThrownBy(
              () ->
                  new CallEvent.Requested(
                      ID,
                      "demo.echo",
                      input,
                      Optional.empty(),
                      Optional.of(Identity.of("x".repeat(257))),
                      OptionalLong.empty(),
                      Optional.empty(),
                      OptionalLong.empty()))
          .hasMessageContaining("longer than 256");
      assertThatThrownBy(
              () ->
                  new CallEvent.Requested(
                      ID,
                      "demo.echo",
                      input,
                      Optional.empty(),
                      Optional.of(Identity.of("x", " ")),
                      OptionalLong.empty(),
                      Optional.empty(),
                      OptionalLong.empty()))
          .hasMessageContaining("blank scope");
    }

    @Test
    void acceptTheWholeRangeOfRequestIds() {
      assertThat(new CallEvent.Completed("a".repeat(128)).requestId()).hasSize(128);
      assertThat(new CallEvent.Completed(PARENT)).isNotNull();
      assertThat(CallEvents.isValidRequestId("550e8400-e29b-41d4-a716-446655440000")).isTrue();
      assertThat(CallEvents.isValidRequestId("a".repeat(129))).isFalse();
    }
  }
}
