package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.serving.OperationServer;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A failing handler is logged once, at DEBUG, with its stack trace, and counted; nothing at WARN or
 * above (issue 14, finding 6: 200,000 failures wrote about 2 million log lines).
 */
class HandlerFailureLogTest {
  static final int CALLS = 200;

  final Logger library = (Logger) LoggerFactory.getLogger("dev.alkdev.operations");
  final Level levelBefore = library.getLevel();
  final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  final InProcessPubSub pubsub = InProcessPubSub.create();
  final OperationRegistry registry = OperationRegistry.create();
  final OperationServer server = OperationServer.create(registry);
  final CallHandler handler = CallHandler.serve(server, pubsub);
  final PendingRequestMap calls = PendingRequestMap.create(pubsub);

  @AfterEach
  void close() {
    library.detachAppender(lines);
    library.setLevel(levelBefore);
    calls.close();
    handler.close();
    server.close();
    registry.close();
    pubsub.close();
  }

  @Test
  void eachFailureIsOneDebugLineWithItsStackTraceAndIsCounted() {
    registry.register(
        OperationSpec.builder("demo", "boom").build(),
        (in, ctx) -> {
          throw new IllegalStateException("the database is down");
        });
    library.setLevel(Level.DEBUG);
    lines.start();
    library.addAppender(lines);

    for (int i = 0; i < CALLS; i++) {
      CompletionException failed =
          org.junit.jupiter.api.Assertions.assertThrows(
              CompletionException.class,
              () -> calls.call("demo.boom", null).orTimeout(5, TimeUnit.SECONDS).join());
      assertThat(((CallError) failed.getCause()).code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
    }

    List<ILoggingEvent> failures =
        lines.list.stream().filter(e -> e.getThrowableProxy() != null).toList();
    assertThat(failures).hasSize(CALLS);
    assertThat(failures)
        .allSatisfy(
            e -> {
              assertThat(e.getLevel()).isEqualTo(Level.DEBUG);
              assertThat(e.getFormattedMessage()).isEqualTo("Handler of demo.boom failed");
              assertThat(e.getThrowableProxy().getMessage()).isEqualTo("the database is down");
              assertThat(e.getThrowableProxy().getStackTraceElementProxyArray()).isNotEmpty();
            });
    assertThat(lines.list).noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.WARN));
    assertThat(server.stats().executionErrors()).isEqualTo(CALLS);
  }
}
