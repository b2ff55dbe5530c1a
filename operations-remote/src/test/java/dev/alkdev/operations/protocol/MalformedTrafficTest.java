package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * What each side does with traffic it cannot use: the rules of docs/protocol.md ("Malformed
 * messages", "Size and depth limits") between a real PendingRequestMap, CallHandler and raw
 * publishers.
 */
class MalformedTrafficTest {
  static final String ID = CallEventFixtures.ID;

  final InProcessPubSub pubsub = InProcessPubSub.builder().maxMessageBytes(8_192).build();
  final OperationRegistry registry = OperationRegistry.create();
  final CallHandler handler = CallHandler.serve(registry, pubsub);
  final PendingRequestMap calls = PendingRequestMap.create(pubsub);

  @AfterEach
  void close() {
    calls.close();
    handler.close();
    registry.close();
    pubsub.close();
  }

  static CallError failure(java.util.concurrent.CompletableFuture<?> future) {
    Throwable thrown = catchThrowable(() -> future.get(5, TimeUnit.SECONDS));
    assertThat(thrown).isInstanceOf(java.util.concurrent.ExecutionException.class);
    assertThat(thrown.getCause()).isInstanceOf(CallError.class);
    return (CallError) thrown.getCause();
  }

  /** A raw client's inbox: every event published to it, decoded. */
  LinkedBlockingQueue<CallEvent> inbox(String topic) {
    LinkedBlockingQueue<CallEvent> received = new LinkedBlockingQueue<>();
    pubsub.subscribe(
        topic,
        SubscribeOptions.defaults(),
        message -> received.add(CallEvents.decode(message.payload(), pubsub.maxMessageBytes())));
    return received;
  }

  void publish(String topic, String json) {
    pubsub.publish(topic, json.getBytes(StandardCharsets.UTF_8)).join();
  }

  @Test
  void aRequestInANewerVersionIsAnsweredWithTheVersionsSpoken() throws Exception {
    registry.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
    String inbox = "ops.inbox.raw1";
    LinkedBlockingQueue<CallEvent> received = inbox(inbox);
    publish(
        "ops.req.demo.echo",
        "{\"v\": 2, \"type\": \"call.requested\", \"requestId\": \""
            + ID
            + "\", \"replyTo\": \""
            + inbox
            + "\", \"operationId\": \"demo.echo\", \"input\": 1, \"stream\": {\"window\": 4}}");
    CallEvent.Failed answer = (CallEvent.Failed) received.poll(5, TimeUnit.SECONDS);
    assertThat(answer.requestId()).isEqualTo(ID);
    assertThat(answer.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
    assertThat(answer.message()).contains("protocol version 2 is not supported");
    assertThat(answer.details().orElseThrow().get("supportedVersions").get(0).asInt()).isEqualTo(1);
    assertThat(handler.stats().malformed()).isEqualTo(1);
  }

  @Test
  void aRequestThatIsNotJsonIsAnsweredWhenItsHeaderCanBeRead() throws Exception {
    registry.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
    String inbox = "ops.inbox.raw2";
    LinkedBlockingQueue<CallEvent> received = inbox(inbox);
    publish(
        "ops.req.demo.echo",
        "{\"v\": 1, \"type\": \"call.requested\", \"requestId\": \""
            + ID
            + "\", \"replyTo\": \""
            + inbox
            + "\", \"operationId\": \"demo.echo\", \"input\": [1, 2,");
    CallEvent.Failed answer = (CallEvent.Failed) received.poll(5, TimeUnit.SECONDS);
    assertThat(answer.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
    assertThat(answer.message()).contains("not valid JSON");

    // Without a readable reply topic there is nobody to tell: dropped and counted.
    publish("ops.req.demo.echo", "not json at all");
    publish("ops.req.demo.echo", "[1, 2, 3]");
    for (int i = 0; i < 50 && handler.stats().malformed() < 3; i++) {
      Thread.sleep(20);
    }
    assertThat(handler.stats().malformed()).isEqualTo(3);
    assertThat(received).isEmpty();
    // The handler loop survives: a good call still works.
    assertThat(calls.call("demo.echo", 7).get(5, TimeUnit.SECONDS).data().asInt()).isEqualTo(7);
  }

  @Test
  void anUnreadableResponseFailsItsCallAtOnceAndAbortsIt() throws Exception {
    // A broken server: answers every request with an envelope that has no meta.
    List<CallEvent> control = new CopyOnWriteArrayList<>();
    pubsub.subscribe(
        ProtocolTopics.CONTROL,
        SubscribeOptions.defaults(),
        m -> control.add(CallEvents.decode(m.payload(), pubsub.maxMessageBytes())));
    pubsub.subscribe(
        "ops.req.broken.op",
        SubscribeOptions.queueGroup(ProtocolTopics.SERVER_GROUP),
        (Message m) -> {
          CallEvent.Requested request =
              (CallEvent.Requested) CallEvents.decode(m.payload(), pubsub.maxMessageBytes());
          publish(
              request.replyTo().orElseThrow(),
              "{\"v\": 1, \"type\": \"call.responded\", \"requestId\": \""
                  + request.requestId()
                  + "\", \"output\": {\"data\": 1}}");
        });
    long start = System.nanoTime();
    CallError error =
        failure(
            calls.call(
                "broken.op",
                null,
                CallOptions.defaults().withTimeout(java.time.Duration.ofSeconds(20))));
    assertThat(error.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
    assertThat(error.getMessage()).contains("\"output\" is not a response envelope");
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
    assertThat(calls.stats().pending()).isZero();
    assertThat(calls.stats().malformed()).isEqualTo(1);
    // The abort is published as the call fails; its delivery is asynchronous.
    for (int i = 0; i < 250 && control.isEmpty(); i++) {
      Thread.sleep(20);
    }
    assertThat(control).hasSize(1).first().isInstanceOf(CallEvent.Aborted.class);
  }

  @Test
  void anInputTooDeepForAnyReaderFailsBeforeItIsSent() {
    JsonNode deep = JsonNodeFactory.instance.arrayNode();
    for (int i = 0; i < 300; i++) {
      deep = JsonNodeFactory.instance.arrayNode().add(deep);
    }
    CallError error = failure(calls.call("demo.echo", deep));
    assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(error.getMessage()).contains("nests deeper than the protocol's limit of 256");
    assertThat(calls.stats().pending()).isZero();
  }

  @Test
  void anErrorTooLargeForTheTransportStillReachesTheCaller() {
    registry.register(
        OperationSpec.builder("demo", "fail").build(),
        (in, ctx) -> {
          throw CallError.builder(ErrorCode.ACCESS_DENIED, "denied ".repeat(3_000))
              .details(JsonNodeFactory.instance.stringNode("d".repeat(10_000)))
              .build();
        });
    CallError error = failure(calls.call("demo.fail", null));
    assertThat(error.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
    assertThat(error.getMessage()).startsWith("denied denied").hasSize(1024);
    assertThat(error.details()).isEmpty();
  }

  @Test
  void aResponseTooLargeForTheTransportBecomesResourceExhausted() {
    registry.register(
        OperationSpec.builder("demo", "big").build(), (in, ctx) -> "x".repeat(20_000));
    CallError error = failure(calls.call("demo.big", null));
    assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(error.getMessage()).contains("more than the transport carries (8192)");
    assertThat(error.retryable()).isFalse();
  }

  @Test
  void aRequestTooLargeForTheTransportFailsAtOnceAndIsNotRetryable() {
    CallError error = failure(calls.call("demo.echo", "x".repeat(10_000)));
    assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(error.getMessage()).contains("more than the transport carries (8192)");
    assertThat(error.retryable()).isFalse();
    assertThat(calls.stats().pending()).isZero();
  }

  @Test
  void optionsTheWireCannotCarryFailTheCallInsteadOfThrowing() {
    CallError error =
        failure(
            calls.call(
                "demo.echo", 1, CallOptions.defaults().withParentRequestId("not a request id")));
    assertThat(error.code()).isEqualTo(ErrorCode.INVALID_INPUT);
    assertThat(error.getMessage()).contains("Not a valid request id: 'not a request id'");
  }

  @Test
  void respondRefusesARequestIdTheWireCannotCarry() {
    Throwable thrown =
        catchThrowable(
            () ->
                calls.respond(
                    "bad id",
                    dev.alkdev.operations.envelope.Envelopes.localEnvelope(1, "demo.echo")));
    assertThat(thrown)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Not a valid request id");
  }
}
