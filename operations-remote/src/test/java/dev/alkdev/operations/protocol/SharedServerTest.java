package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.serving.OperationServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Two CallHandlers, on two transports, over one serving pipeline. */
class SharedServerTest {
  @Test
  void handlersOverOneServerShareItsCapAndCloseOnlyTheirOwnCalls() throws Exception {
    CompletableFuture<Object> hold = new CompletableFuture<>();
    try (OperationRegistry registry = OperationRegistry.create();
        OperationServer server = OperationServer.builder(registry).maxConcurrentCalls(1).build();
        InProcessPubSub first = InProcessPubSub.create();
        InProcessPubSub second = InProcessPubSub.create();
        PendingRequestMap callsOnFirst = PendingRequestMap.create(first);
        PendingRequestMap callsOnSecond = PendingRequestMap.create(second)) {
      registry.register(
          OperationSpec.builder("demo", "hold").build(), Handler.async((in, c) -> hold));
      CallHandler onFirst = CallHandler.serve(server, first);
      CallHandler onSecond = CallHandler.serve(server, second);
      assertThatThrownBy(() -> CallHandler.builder(server, first).maxConcurrentCalls(3))
          .isInstanceOf(IllegalStateException.class);

      CompletableFuture<?> held = callsOnFirst.call("demo.hold", null);
      assertThat(server.stats().running()).isEqualTo(1);
      ExecutionException refused =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class,
              () -> callsOnSecond.call("demo.hold", null).get(5, TimeUnit.SECONDS));
      assertThat(((CallError) refused.getCause()).code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);

      onFirst.close();
      ExecutionException closed =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class, () -> held.get(5, TimeUnit.SECONDS));
      assertThat(((CallError) closed.getCause()).code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(server.isClosed()).isFalse();
      assertThat(server.stats().running()).isZero();

      hold.complete(9);
      assertThat(callsOnSecond.call("demo.hold", null).get(5, TimeUnit.SECONDS).data().asInt())
          .isEqualTo(9);
      onSecond.close();
    }
  }
}
