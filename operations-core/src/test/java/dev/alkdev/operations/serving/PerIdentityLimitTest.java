package dev.alkdev.operations.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.IntNode;

/**
 * One caller cannot take the whole server: unary calls and streams are two lanes, each capped in
 * all and per caller (an identity, or an anonymous client).
 */
class PerIdentityLimitTest {
  static final Identity MALLORY = Identity.of("mallory");
  static final Identity ALICE = Identity.of("alice");

  final OperationRegistry registry = OperationRegistry.create();
  final CompletableFuture<Object> hold = new CompletableFuture<>();
  OperationServer server;

  PerIdentityLimitTest() {
    registry.register(
        OperationSpec.builder("demo", "hold").build(), Handler.async((in, ctx) -> hold));
    // A stream that never emits: it holds its slot until it is cancelled.
    registry.register(
        OperationSpec.builder("demo", "quiet").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher(
            (in, ctx) ->
                subscriber ->
                    subscriber.onSubscribe(
                        new Flow.Subscription() {
                          @Override
                          public void request(long n) {}

                          @Override
                          public void cancel() {}
                        })));
  }

  @AfterEach
  void close() {
    hold.complete(1);
    server.close();
    registry.close();
  }

  RecordingSink serve(String operationId, Identity identity) {
    return serve(CallRequest.builder(operationId).identity(identity), operationId);
  }

  RecordingSink serveFrom(String operationId, String client) {
    return serve(CallRequest.builder(operationId).client(client), operationId);
  }

  private RecordingSink serve(CallRequest.Builder request, String operationId) {
    RecordingSink sink = new RecordingSink();
    if (operationId.equals("demo.quiet")) {
      request.demand(1);
    }
    server.serve(request.build(), sink);
    return sink;
  }

  @Test
  void aCallerBeyondItsCallLimitIsRefusedAndOthersAreNot() throws Exception {
    server = OperationServer.builder(registry).maxCallsPerIdentity(3).build();
    List<RecordingSink> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(serve("demo.hold", MALLORY));
    }
    RecordingSink refused = serve("demo.hold", MALLORY).awaitEnd();
    assertThat(refused.error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(refused.error.retryable()).isTrue();
    assertThat(refused.error.getMessage())
        .contains("'mallory'")
        .contains("maxCallsPerIdentity = 3");
    // Scopes do not make another caller: the subject does.
    assertThat(serve("demo.hold", Identity.of("mallory", "admin")).awaitEnd().error.code())
        .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);

    RecordingSink alice = serve("demo.hold", ALICE);
    assertThat(server.stats().running()).isEqualTo(4);
    hold.complete(7);
    assertThat(alice.awaitEnd().error).isNull();
    for (RecordingSink sink : held) {
      assertThat(sink.awaitEnd().result.data()).isEqualTo(IntNode.valueOf(7));
    }
    // The slots came back: mallory may call again.
    assertThat(serve("demo.hold", MALLORY).awaitEnd().error).isNull();
    assertThat(server.stats().running()).isZero();
  }

  @Test
  void streamsHaveTheirOwnShare() throws Exception {
    server =
        OperationServer.builder(registry).maxCallsPerIdentity(10).maxStreamsPerIdentity(2).build();
    RecordingSink first = serve("demo.quiet", MALLORY);
    serve("demo.quiet", MALLORY);
    RecordingSink refused = serve("demo.quiet", MALLORY).awaitEnd();
    assertThat(refused.error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(refused.error.getMessage())
        .contains("running 2 streams")
        .contains("maxStreamsPerIdentity = 2");
    // Unary calls of the same caller still fit under its call share; other callers' streams too.
    RecordingSink unary = serve("demo.hold", MALLORY);
    RecordingSink aliceStream = serve("demo.quiet", ALICE);
    assertThat(unary.ended.getCount()).isEqualTo(1);
    assertThat(aliceStream.ended.getCount()).isEqualTo(1);
    assertThat(server.stats().running()).isEqualTo(4);

    // A stream that ends gives its stream slot back.
    first.started.cancel(dev.alkdev.operations.CallError.of(ErrorCode.CANCELLED, "done"));
    RecordingSink again = serve("demo.quiet", MALLORY);
    assertThat(again.ended.getCount()).isEqualTo(1);
    assertThat(server.stats().running()).isEqualTo(4);
  }

  @Test
  void anonymousCallersAreOneCaller() throws Exception {
    server = OperationServer.builder(registry).maxCallsPerIdentity(2).build();
    serve("demo.hold", Identity.anonymous());
    serve("demo.hold", Identity.anonymous());
    RecordingSink refused = serve("demo.hold", Identity.anonymous()).awaitEnd();
    assertThat(refused.error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(refused.error.getMessage()).contains("Anonymous callers");
  }

  @Test
  void theServerCapStillHolds() throws Exception {
    server = OperationServer.builder(registry).maxConcurrentCalls(2).build();
    serve("demo.hold", MALLORY);
    serve("demo.hold", ALICE);
    RecordingSink refused = serve("demo.hold", Identity.of("bob")).awaitEnd();
    assertThat(refused.error.getMessage()).contains("maxConcurrentCalls");
    hold.complete(1);
    // The refused call's caller slot was given back too: bob may call now.
    assertThat(serve("demo.hold", Identity.of("bob")).awaitEnd().error).isNull();
  }

  @Test
  void anonymousClientsHaveAShareEach() throws Exception {
    server = OperationServer.builder(registry).maxCallsPerIdentity(2).build();
    serveFrom("demo.hold", "http 10.0.0.1");
    serveFrom("demo.hold", "http 10.0.0.1");
    RecordingSink refused = serveFrom("demo.hold", "http 10.0.0.1").awaitEnd();
    assertThat(refused.error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(refused.error.getMessage())
        .contains("Anonymous client http 10.0.0.1")
        .contains("maxCallsPerIdentity = 2");
    assertThat(refused.error.details().orElseThrow().path("scope").asString()).isEqualTo("caller");
    // Another client, and an authenticated caller from the flooding client, still get in.
    RecordingSink other = serveFrom("demo.hold", "http 10.0.0.2");
    RecordingSink named =
        serve(
            CallRequest.builder("demo.hold").identity(ALICE).client("http 10.0.0.1"), "demo.hold");
    assertThat(other.ended.getCount()).isEqualTo(1);
    assertThat(named.ended.getCount()).isEqualTo(1);
    assertThat(server.stats().callers()).isEqualTo(3);
    assertThat(server.stats().refusedCallerShare()).isEqualTo(1);
    assertThat(server.stats().saturated()).isFalse();
  }

  @Test
  void defaultSharesAreAnEighthOfEachLane() throws Exception {
    server = OperationServer.builder(registry).maxConcurrentCalls(16).build();
    serve("demo.hold", MALLORY);
    serve("demo.hold", MALLORY);
    RecordingSink refused = serve("demo.hold", MALLORY).awaitEnd();
    assertThat(refused.error.getMessage()).contains("maxCallsPerIdentity = 2");
    // Streams are a lane of their own, with the default stream share (10,000 / 8).
    for (int i = 0; i < 10; i++) {
      assertThat(serve("demo.quiet", MALLORY).ended.getCount()).isEqualTo(1);
    }
    assertThat(server.stats().streams()).isEqualTo(10);
    assertThat(server.stats().calls()).isEqualTo(2);
  }

  @Test
  void aFullStreamLaneLeavesUnaryCallsTheirs() throws Exception {
    server =
        OperationServer.builder(registry).maxConcurrentStreams(3).maxConcurrentCalls(3).build();
    for (int i = 0; i < 3; i++) {
      serve("demo.quiet", Identity.of("streamer" + i));
    }
    RecordingSink refused = serve("demo.quiet", ALICE).awaitEnd();
    assertThat(refused.error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(refused.error.getMessage()).contains("maxConcurrentStreams");
    assertThat(refused.error.details().orElseThrow().path("scope").asString()).isEqualTo("server");
    assertThat(server.stats().saturated()).isTrue();
    assertThat(server.stats().ready()).isFalse();
    // Every unary slot is still free.
    List<RecordingSink> unary = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      unary.add(serve("demo.hold", Identity.of("caller" + i)));
    }
    hold.complete(5);
    for (RecordingSink sink : unary) {
      assertThat(sink.awaitEnd().error).isNull();
    }
    assertThat(server.stats().refusedServerFull()).isEqualTo(1);
  }

  @Test
  void limitsMustBePositive() {
    assertThatThrownBy(() -> OperationServer.builder(registry).maxCallsPerIdentity(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OperationServer.builder(registry).maxStreamsPerIdentity(-1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OperationServer.builder(registry).maxConcurrentStreams(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxConcurrentStreams must be positive, was 0");
    server = OperationServer.create(registry);
  }
}
