package dev.alkdev.operations.transport.nats.internal;

import dev.alkdev.operations.CallError;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.NUID;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tells each publish whether anybody received it: 0, or 1 meaning "at least one" (NATS does not
 * count receivers).
 *
 * <p>Every message is published with a reply subject of this connection's own. When nothing is
 * subscribed to the subject, the server answers that reply subject at once with a 503 status (the
 * no-responders status); when something is, the server sends nothing back. To learn that nothing is
 * coming, a marker message follows each burst of publishes to another subject of the same wildcard
 * subscription: the server handles one connection's messages in order and delivers one
 * subscription's messages in order, so a 503 for a publish always arrives before the marker that
 * followed it. A marker therefore settles, as "at least one", every publish sent before it that got
 * no 503. Markers are sent one at a time per burst, not per publish, so under load the cost is the
 * reply subject in each message and one small message per burst.
 */
public final class ReceiverProbes {
  /**
   * Every connection's probe and marker subjects start with this, followed by the connection's
   * private token and a dot when it has one ({@link #privatePrefix}), then a NUID of the
   * connection's own: broker permissions must allow it for publishing and subscribing ({@code
   * NatsPermissions}).
   */
  public static final String SUBJECT_PREFIX = "_OPS.RCV.";

  private static final int NO_RESPONDERS = 503;

  /**
   * How long publishes wait for a marker. Nothing waits on "at least one" (a 503 settles a publish
   * as 0 the moment it arrives, without the marker), so markers are sent per window, not per
   * publish: one small message and one wake-up per window instead of per publish.
   */
  private static final long MARKER_DELAY_MICROS = 2_000;

  /** Publishes awaiting a marker that make one go at once, bounding the memory they hold. */
  private static final int MAX_UNMARKED = 1_024;

  private final Connection connection;
  private final Dispatcher dispatcher;
  private final String probePrefix;
  private final String markerPrefix;
  private final AtomicLong nextProbe = new AtomicLong();
  private final AtomicLong nextMarker = new AtomicLong();
  private final Map<Long, CompletableFuture<Integer>> pending = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Long> unmarked = new ConcurrentLinkedQueue<>();
  private final Map<Long, List<Long>> markers = new ConcurrentHashMap<>();
  private final AtomicBoolean sendingMarkers = new AtomicBoolean();
  private final AtomicInteger unmarkedCount = new AtomicInteger();
  private final AtomicBoolean timerArmed = new AtomicBoolean();
  private final ScheduledExecutorService timer;
  private final Runnable onTimer = this::onTimer;
  // Set once, before failAll sweeps: a publish that registers after the sweep looked sees it and
  // fails itself, so no publish is left waiting for a marker that will never come.
  private volatile CallError failed;

  /** Probes publishes on {@code connection}; {@code timer} sends the markers of quiet periods. */
  public ReceiverProbes(Connection connection, ScheduledExecutorService timer) {
    this(connection, timer, Optional.empty());
  }

  /**
   * Probes publishes on {@code connection} under {@link #privatePrefix privatePrefix(token)} when
   * {@code privateToken} is given (a token {@code NatsOptions} checked), under {@link
   * #SUBJECT_PREFIX} otherwise; {@code timer} sends the markers of quiet periods.
   */
  public ReceiverProbes(
      Connection connection, ScheduledExecutorService timer, Optional<String> privateToken) {
    this.connection = connection;
    this.timer = timer;
    String root =
        privateToken.map(ReceiverProbes::privatePrefix).orElse(SUBJECT_PREFIX)
            + NUID.nextGlobal()
            + ".";
    this.probePrefix = root + "p.";
    this.markerPrefix = root + "m.";
    this.dispatcher = connection.createDispatcher(this::onReply);
    // A burst of 503s must never count as a slow consumer: these are tiny and handled at once.
    this.dispatcher.setPendingLimits(-1, -1);
    this.dispatcher.subscribe(root + ">");
  }

  /**
   * Where the probes of connections given the private token {@code token} are: {@code
   * _OPS.RCV.<token>.}, followed by each connection's NUID. A user allowed {@code
   * _OPS.RCV.<token>.>} alone can neither read nor forge (a no-responders status, a marker) the
   * probes of users with another token.
   */
  public static String privatePrefix(String token) {
    return SUBJECT_PREFIX + token + ".";
  }

  /**
   * Publishes {@code payload} to {@code subject}; the future completes with 0 (nobody subscribed)
   * or 1 (at least one), or fails with {@code failure} if the connection drops first.
   *
   * @throws IllegalStateException from jnats when the connection cannot take the message
   */
  public CompletableFuture<Integer> publish(String subject, byte[] payload) {
    CallError alreadyFailed = failed;
    if (alreadyFailed != null) {
      return CompletableFuture.failedFuture(alreadyFailed);
    }
    long probe = nextProbe.incrementAndGet();
    CompletableFuture<Integer> receivers = new CompletableFuture<>();
    pending.put(probe, receivers);
    try {
      connection.publish(subject, probePrefix + probe, payload);
    } catch (RuntimeException e) {
      pending.remove(probe);
      throw e;
    }
    CallError failedMeanwhile = failed;
    if (failedMeanwhile != null) {
      // failAll ran while this publish was registering and may have swept before it: settle it
      // here (whichever of the two removes the probe completes it).
      CompletableFuture<Integer> mine = pending.remove(probe);
      if (mine != null) {
        mine.completeExceptionally(failedMeanwhile);
      }
      return receivers;
    }
    // Only after publish returned: the message is in jnats' write queue ahead of any marker sent
    // from now on.
    unmarked.add(probe);
    if (unmarkedCount.incrementAndGet() >= MAX_UNMARKED) {
      sendMarkers();
    } else {
      armMarkerTimer();
    }
    return receivers;
  }

  /**
   * Fails every publish not yet settled, and every later one (the connection dropped or closed: a
   * connection's probes are not used again once it has).
   */
  public void failAll(CallError failure) {
    if (failed == null) {
      failed = failure;
    }
    unmarked.clear();
    unmarkedCount.set(0);
    markers.clear();
    for (Long probe : List.copyOf(pending.keySet())) {
      CompletableFuture<Integer> receivers = pending.remove(probe);
      if (receivers != null) {
        receivers.completeExceptionally(failure);
      }
    }
  }

  /** Publishes not yet settled. */
  public int unsettled() {
    return pending.size();
  }

  private void armMarkerTimer() {
    if (timerArmed.compareAndSet(false, true)) {
      try {
        timer.schedule(onTimer, MARKER_DELAY_MICROS, TimeUnit.MICROSECONDS);
      } catch (RejectedExecutionException closing) {
        timerArmed.set(false);
      }
    }
  }

  private void onTimer() {
    // Disarmed before draining: a publish after the drain arms the next window.
    timerArmed.set(false);
    sendMarkers();
  }

  /**
   * Sends a marker for the probes not yet marked, on the calling thread (no hand-off): one
   * publisher at a time sends markers, and before it stops it looks again, so a probe added while
   * it was busy is marked by it or by the next publisher. Under load, one marker covers many
   * publishes.
   */
  private void sendMarkers() {
    while (!unmarked.isEmpty() && sendingMarkers.compareAndSet(false, true)) {
      try {
        List<Long> batch = new ArrayList<>();
        Long probe;
        while ((probe = unmarked.poll()) != null) {
          batch.add(probe);
        }
        unmarkedCount.addAndGet(-batch.size());
        if (!batch.isEmpty()) {
          long marker = nextMarker.incrementAndGet();
          markers.put(marker, batch);
          try {
            connection.publish(markerPrefix + marker, null);
          } catch (RuntimeException e) {
            // The connection is gone: failAll settles these publishes with the disconnect.
            markers.remove(marker);
          }
        }
      } finally {
        sendingMarkers.set(false);
      }
    }
  }

  private void onReply(Message message) {
    String subject = message.getSubject();
    if (subject.startsWith(probePrefix)) {
      if (message.isStatusMessage() && message.getStatus().getCode() == NO_RESPONDERS) {
        CompletableFuture<Integer> receivers = pending.remove(parse(subject, probePrefix));
        if (receivers != null) {
          settle(List.of(receivers), 0);
        }
      }
      // Anything else on a probe subject is a subscriber answering the reply subject it saw:
      // ours are not meant to be answered, so it is ignored.
    } else if (subject.startsWith(markerPrefix)) {
      List<Long> batch = markers.remove(parse(subject, markerPrefix));
      if (batch != null) {
        List<CompletableFuture<Integer>> settled = new ArrayList<>(batch.size());
        for (Long probe : batch) {
          CompletableFuture<Integer> receivers = pending.remove(probe);
          if (receivers != null) {
            settled.add(receivers);
          }
        }
        settle(settled, 1);
      }
    }
  }

  /**
   * Completes on the thread that reads the replies: what waits on a publish future must be quick
   * (the call protocol's callbacks are), as it holds up the settling of later publishes.
   */
  private static void settle(List<CompletableFuture<Integer>> futures, int receivers) {
    for (CompletableFuture<Integer> future : futures) {
      future.complete(receivers);
    }
  }

  private static long parse(String subject, String prefix) {
    try {
      return Long.parseLong(subject.substring(prefix.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
