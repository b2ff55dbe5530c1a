package dev.alkdev.operations.internal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {
  final Logger logger = (Logger) LoggerFactory.getLogger("dev.alkdev.operations.test.ratelimited");
  final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  final AtomicLong now = new AtomicLong(1_000);
  final RateLimitedLog log = new RateLimitedLog(logger, 3, Duration.ofSeconds(10), now::get);

  {
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void detach() {
    logger.detachAppender(lines);
  }

  @Test
  void atMostTheLimitPerIntervalThenTheNextLineCountsWhatWasHeldBack() {
    IllegalStateException cause = new IllegalStateException("boom");
    for (int i = 0; i < 1_000; i++) {
      log.warn("Call {} failed", i, cause);
    }
    assertThat(lines.list).hasSize(3);
    assertThat(lines.list.get(0).getFormattedMessage()).isEqualTo("Call 0 failed");
    assertThat(lines.list.get(0).getThrowableProxy().getMessage()).isEqualTo("boom");

    now.addAndGet(Duration.ofSeconds(10).toNanos());
    log.warn("Call {} failed", 1_000, cause);
    assertThat(lines.list).hasSize(4);
    ILoggingEvent next = lines.list.get(3);
    assertThat(next.getFormattedMessage())
        .isEqualTo("Call 1000 failed (997 similar messages suppressed)");
    assertThat(next.getThrowableProxy().getMessage()).isEqualTo("boom"); // still the exception

    log.error("no arguments");
    assertThat(lines.list.get(4).getFormattedMessage()).isEqualTo("no arguments");
  }

  @Test
  void aSuppressedCountWithoutAThrowableIsAppended() {
    for (int i = 0; i < 5; i++) {
      log.warn("plain {}", "line");
    }
    now.addAndGet(Duration.ofSeconds(11).toNanos());
    log.warn("plain {}", "line");
    assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage).hasSize(4);
    assertThat(lines.list.get(3).getFormattedMessage())
        .isEqualTo("plain line (2 similar messages suppressed)");
    assertThat(lines.list.get(3).getThrowableProxy()).isNull();
  }
}
