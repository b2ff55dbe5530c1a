package dev.alkdev.operations.serving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.IntNode;

/**
 * Open streams do not stop other calls (issue 31, finding 1): emitters that wait for demand or
 * sleep between items hold threads of their own lane, never the threads blocking unary handlers
 * need. On JDK 17 the registry's lanes are elastic pools; a fixed pool of 16 threads used to let 16
 * such streams stop every blocking call.
 */
class StreamLaneTest {
  static final int STREAMS = 48; // three times the old fixed pool's 16 threads

  final OperationRegistry registry = OperationRegistry.create();
  final CountDownLatch streaming = new CountDownLatch(STREAMS);
  final OperationServer server = OperationServer.create(registry);

  StreamLaneTest() {
    // Emits as fast as demand allows: with demand 1 it waits in emit() after its first item.
    registry.register(
        OperationSpec.builder("demo", "firehose").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, emitter) -> {
              streaming.countDown();
              for (int i = 0; !emitter.isCancelled(); i++) {
                emitter.emit(i);
              }
            }));
    // Sleeps between items, like a clock.
    registry.register(
        OperationSpec.builder("demo", "clock").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, emitter) -> {
              streaming.countDown();
              while (!emitter.isCancelled()) {
                Thread.sleep(60_000);
                emitter.emit(1);
              }
            }));
    registry.register(
        OperationSpec.builder("demo", "work").build(),
        (in, ctx) -> {
          Thread.sleep(5); // blocking work
          return 42;
        });
  }

  @AfterEach
  void close() {
    server.close();
    registry.close();
  }

  @Test
  void blockingCallsAnswerWhileManyStreamsWait() throws Exception {
    List<RecordingSink> streams = new ArrayList<>();
    for (int i = 0; i < STREAMS; i++) {
      RecordingSink sink = new RecordingSink();
      String op = i % 2 == 0 ? "demo.firehose" : "demo.clock";
      server.serve(CallRequest.builder(op).demand(1).client("stream " + i).build(), sink);
      streams.add(sink);
    }
    assertThat(streaming.await(10, TimeUnit.SECONDS)).as("every emitter runs").isTrue();
    assertThat(server.stats().streams()).isEqualTo(STREAMS);

    List<RecordingSink> calls = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      RecordingSink sink = new RecordingSink();
      server.serve(CallRequest.builder("demo.work").client("caller " + (i % 4)).build(), sink);
      calls.add(sink);
    }
    for (RecordingSink call : calls) {
      call.awaitEnd();
      assertThat(call.error).isNull();
      assertThat(call.result.data()).isEqualTo(IntNode.valueOf(42));
    }
    assertThat(server.stats().calls()).isZero();
    assertThat(server.stats().waiting()).isZero();

    for (RecordingSink stream : streams) {
      stream.started.cancel(CallError.of(ErrorCode.CANCELLED, "done"));
    }
    // A cancelled stream's sink hears nothing more (its adapter cancelled it); its slot comes back.
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.stats().streams() > 0 && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    assertThat(server.stats().streams()).isZero();
  }
}
