package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.internal.RateLimitedLog;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * One timer task for every open stream of a gateway: each keep-alive period it ticks them all (a
 * keep-alive comment where nothing was written since the last tick, a cut where a write has
 * stalled). A scheduled task per stream held a timer entry, its wrapper and a lambda for each of
 * thousands of idle streams; here a stream costs one entry of a set.
 */
final class StreamTicks {
  private static final RateLimitedLog TICK_FAILED =
      RateLimitedLog.of(LoggerFactory.getLogger(StreamTicks.class));

  private final Set<StreamExchange> open = ConcurrentHashMap.newKeySet();

  StreamTicks(ScheduledExecutorService timer, Duration period) {
    long ms = period.toMillis();
    try {
      timer.scheduleAtFixedRate(this::tick, ms, ms, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // the gateway is stopping: its streams end with it
    }
  }

  void add(StreamExchange stream) {
    open.add(stream);
  }

  void remove(StreamExchange stream) {
    open.remove(stream);
  }

  private void tick() {
    for (StreamExchange stream : open) {
      try {
        stream.tick();
      } catch (RuntimeException e) {
        // A periodic task that throws is never run again: one stream must not stop the others'.
        TICK_FAILED.warn("A stream's keep-alive tick failed", e);
      }
    }
  }
}
