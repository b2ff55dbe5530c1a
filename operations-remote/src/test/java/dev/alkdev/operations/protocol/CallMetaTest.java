package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.ContextKey;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/** The {@code meta} of call.requested: its codec, its limits, and trace context across hops. */
class CallMetaTest {
  static final String ID = "0123456789abcdef0123456789abcdef";
  static final String INBOX = "ops.inbox.00112233445566778899aabbccddeeff";
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  static CallEvent.Requested request(CallMetadata meta) {
    return new CallEvent.Requested(
        ID,
        "demo.echo",
        NullNode.getInstance(),
        Optional.empty(),
        Optional.empty(),
        OptionalLong.empty(),
        Optional.of(INBOX),
        OptionalLong.empty(),
        meta);
  }

  static String requestWithMeta(String meta) {
    return "{\"v\":1,\"type\":\"call.requested\",\"requestId\":\""
        + ID
        + "\",\"replyTo\":\""
        + INBOX
        + "\",\"operationId\":\"demo.echo\",\"meta\":"
        + meta
        + "}";
  }

  static CallError protocolError(String json) {
    Throwable thrown =
        catchThrowable(
            () ->
                CallEvents.decode(
                    json.getBytes(StandardCharsets.UTF_8), CallEvents.DEFAULT_MAX_MESSAGE_BYTES));
    assertThat(thrown).isInstanceOf(CallError.class);
    CallError error = (CallError) thrown;
    assertThat(error.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
    // The sender can still be told.
    assertThat(CallEvents.readableRequestId(error)).contains(ID);
    assertThat(CallEvents.readableReplyTo(error)).contains(INBOX);
    return error;
  }

  static String pointer(CallError error) {
    return error.details().orElseThrow().get("pointer").asString();
  }

  @Nested
  class Codec {
    @Test
    void metaRoundTripsAndValidatesAgainstTheEventSchema() {
      CallEvent.Requested event =
          request(CallMetadata.of(Map.of("traceparent", TRACEPARENT, "tracestate", "k=v")));
      byte[] bytes = CallEvents.encode(event);
      assertThat(CallEvents.decode(bytes, CallEvents.DEFAULT_MAX_MESSAGE_BYTES)).isEqualTo(event);
      JsonNode json = CallEvents.toJson(event);
      assertThat(json.get("meta").get("traceparent").asString()).isEqualTo(TRACEPARENT);
      assertThat(CallEvents.eventSchema().validate(json)).isEmpty();
    }

    @Test
    void emptyMetaIsLeftOutAndAbsentOrNullMetaReadsAsEmpty() {
      assertThat(CallEvents.toJson(request(CallMetadata.empty())).has("meta")).isFalse();
      CallEvent.Requested read =
          (CallEvent.Requested)
              CallEvents.decode(
                  requestWithMeta("null").getBytes(StandardCharsets.UTF_8),
                  CallEvents.DEFAULT_MAX_MESSAGE_BYTES);
      assertThat(read.meta().isEmpty()).isTrue();
    }

    @Test
    void theSchemaRefusesWhatTheReaderRefuses() {
      assertThat(
              CallEvents.eventSchema()
                  .validate(CallEventFixtures.json(requestWithMeta("{\"a\": 1}"))))
          .isNotEmpty();
      assertThat(
              CallEvents.eventSchema()
                  .validate(CallEventFixtures.json(requestWithMeta("{\"a b\": \"x\"}"))))
          .isNotEmpty();
    }
  }

  @Nested
  class Malformed {
    @Test
    void metaMustBeAnObject() {
      CallError error = protocolError(requestWithMeta("[\"traceparent\"]"));
      assertThat(error.getMessage()).contains("\"meta\" must be an object of string values");
      assertThat(pointer(error)).isEqualTo("/meta");
    }

    @Test
    void valuesMustBeStrings() {
      CallError error = protocolError(requestWithMeta("{\"traceparent\": 7}"));
      assertThat(error.getMessage()).contains("\"meta.traceparent\" must be a string");
      assertThat(pointer(error)).isEqualTo("/meta/traceparent");
    }

    @Test
    void tooManyEntries() {
      StringBuilder meta = new StringBuilder("{");
      for (int i = 0; i <= CallMetadata.MAX_ENTRIES; i++) {
        meta.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"v\"");
      }
      CallError error = protocolError(requestWithMeta(meta.append("}").toString()));
      assertThat(error.getMessage()).contains("at most 32 entries, has 33");
    }

    @Test
    void keysAreBoundedAndPlain() {
      String longKey = "k".repeat(CallMetadata.MAX_KEY_LENGTH + 1);
      assertThat(protocolError(requestWithMeta("{\"" + longKey + "\":\"v\"}")).getMessage())
          .contains("1 to 128 characters, was 129");
      assertThat(protocolError(requestWithMeta("{\"a/b\":\"v\"}")).getMessage())
          .contains("has a character other than");
    }

    @Test
    void valuesHaveNoControlCharacters() {
      CallError error = protocolError(requestWithMeta("{\"baggage\":\"a\\r\\nX-Injected: 1\"}"));
      assertThat(error.getMessage()).contains("control character");
      assertThat(pointer(error)).isEqualTo("/meta/baggage");
    }

    @Test
    void theWholeIsAtMost8KiB() {
      String big = "x".repeat(5000);
      CallError error =
          protocolError(requestWithMeta("{\"a\":\"" + big + "\",\"b\":\"" + big + "\"}"));
      assertThat(error.getMessage()).contains("at most 8192 bytes");
    }

    @Test
    void buildingOversizedMetadataIsAnIllegalArgument() {
      Map<String, String> many = new HashMap<>();
      for (int i = 0; i <= CallMetadata.MAX_ENTRIES; i++) {
        many.put("k" + i, "v");
      }
      assertThatThrownBy(() -> CallMetadata.of(many))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("at most 32 entries");
      assertThatThrownBy(() -> CallMetadata.of("bad key", "v"))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> CallMetadata.of("k", "x".repeat(9000)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("8192 bytes");
    }
  }

  @Nested
  class Propagation {
    @Test
    void aChildContextInheritsMetadataAndAttributes() {
      ContextKey<String> key = ContextKey.of("k");
      OperationContext parent =
          OperationContext.builder()
              .metadata(CallMetadata.of("traceparent", TRACEPARENT))
              .attribute(key, "v")
              .build();
      OperationContext child = parent.child();
      assertThat(child.metadata()).isEqualTo(parent.metadata());
      assertThat(child.attribute(key)).contains("v");
      OperationContext changed = parent.withAttribute(key, "w");
      assertThat(parent.attribute(key)).contains("v"); // contexts are immutable
      assertThat(changed.attribute(key)).contains("w");
      assertThat(changed.requestId()).isEqualTo(parent.requestId());
      assertThat(CallOptions.of(parent).metadata()).isEqualTo(parent.metadata());
    }

    /**
     * A caller sends trace context; node A's handler calls node B's operation over the call
     * protocol on behalf of its context; node B's handler sees the same trace id.
     */
    @Test
    void aTraceIdSurvivesANestedRemoteCall() throws Exception {
      List<String> seenByB = new CopyOnWriteArrayList<>();
      try (InProcessPubSub pubsub = InProcessPubSub.create();
          OperationRegistry nodeA = OperationRegistry.create();
          OperationRegistry nodeB = OperationRegistry.create();
          PendingRequestMap callsFromA = PendingRequestMap.create(pubsub);
          PendingRequestMap client = PendingRequestMap.create(pubsub)) {
        nodeB.register(
            OperationSpec.builder("b", "inner").build(),
            (in, ctx) -> {
              seenByB.add(ctx.metadata().get("traceparent").orElse("none"));
              return ctx.parentRequestId().orElse("none");
            });
        nodeA.register(
            OperationSpec.builder("a", "outer").build(),
            (in, ctx) ->
                callsFromA
                    .call("b.inner", null, CallOptions.of(ctx))
                    .get(5, TimeUnit.SECONDS)
                    .data());
        try (CallHandler servingA = CallHandler.serve(nodeA, pubsub);
            CallHandler servingB = CallHandler.serve(nodeB, pubsub)) {
          JsonNode parentSeenByB =
              client
                  .call(
                      "a.outer",
                      null,
                      CallOptions.defaults()
                          .withMetadata(CallMetadata.of("traceparent", TRACEPARENT)))
                  .get(5, TimeUnit.SECONDS)
                  .data();
          assertThat(parentSeenByB.asString()).hasSize(32); // node A's request id
        }
      }
      assertThat(seenByB).hasSize(1);
      assertThat(traceId(seenByB.get(0))).isEqualTo(traceId(TRACEPARENT));
    }

    private static String traceId(String traceparent) {
      return traceparent.split("-")[1];
    }
  }
}
