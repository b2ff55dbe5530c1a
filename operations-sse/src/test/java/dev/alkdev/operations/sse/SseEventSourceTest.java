package dev.alkdev.operations.sse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class SseEventSourceTest {
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private SseTestServer server;

  private static final SseOptions FAST =
      SseOptions.defaults()
          .withDefaultRetry(Duration.ofMillis(20))
          .withMinRetry(Duration.ofMillis(10))
          .withResponseTimeout(Duration.ofSeconds(5));

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** Records what it receives; requests {@code initial} events at subscription. */
  static final class Recorder implements Flow.Subscriber<SseEvent> {
    final List<SseEvent> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final AtomicLong requested = new AtomicLong();
    final AtomicLong overDelivered = new AtomicLong();
    final CountDownLatch firstEvents;
    volatile Flow.Subscription subscription;
    private final long initial;

    Recorder(long initial, int waitFor) {
      this.initial = initial;
      this.firstEvents = new CountDownLatch(waitFor);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (initial > 0) {
        request(initial);
      }
    }

    void request(long n) {
      requested.addAndGet(n);
      subscription.request(n);
    }

    @Override
    public void onNext(SseEvent event) {
      events.add(event);
      if (events.size() > requested.get()) {
        overDelivered.incrementAndGet();
      }
      firstEvents.countDown();
    }

    @Override
    public void onError(Throwable error) {
      done.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }

    Throwable awaitError() throws Exception {
      try {
        done.get(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        return e.getCause();
      }
      throw new AssertionError("completed without error, events " + events);
    }
  }

  private Recorder subscribe(SseOptions options, long initial) {
    Recorder recorder = new Recorder(initial, 1);
    SseEventSource.open(client, HttpRequest.newBuilder(server.uri()).build(), options)
        .subscribe(recorder);
    return recorder;
  }

  @Test
  void streamsEventsAndSendsSseHeaders() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              x.send("data: one\n\n");
              Thread.sleep(30);
              x.send("event: two\ndata: 2\nid: 2\n\n: ping\n");
              Thread.sleep(30);
              x.send("data: three\n\n");
              x.end();
            });
    Recorder recorder = subscribe(FAST.withoutReconnect(), Long.MAX_VALUE);
    recorder.done.get(10, TimeUnit.SECONDS);
    assertThat(recorder.events).extracting(SseEvent::data).containsExactly("one", "2", "three");
    assertThat(recorder.events.get(1).type()).isEqualTo("two");
    assertThat(recorder.events.get(2).id()).hasValue("2");
    assertThat(server.requests).hasSize(1);
    assertThat(server.requests.get(0).headers())
        .containsEntry("accept", "text/event-stream")
        .containsEntry("cache-control", "no-cache")
        .doesNotContainKey("last-event-id");
  }

  private static final byte[] MIXED =
      ("\uFEFF: c\r\nevent: a\r\ndata: x\u00e9\r\ndata\r\n\r\nid: 9\rdata:y\r\r"
              + "data: \u20ac\n\n")
          .getBytes(StandardCharsets.UTF_8);

  private static final List<SseEvent> MIXED_EVENTS =
      List.of(
          new SseEvent("a", "x\u00e9\n", Optional.empty(), OptionalLong.empty()),
          new SseEvent("message", "y", Optional.of("9"), OptionalLong.empty()),
          new SseEvent("message", "\u20ac", Optional.of("9"), OptionalLong.empty()));

  @Test
  void chunkBoundaryAtEveryBytePositionOverHttp() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              x.send(Arrays.copyOfRange(MIXED, 0, i));
              Thread.sleep(2);
              x.send(Arrays.copyOfRange(MIXED, i, MIXED.length));
              x.end();
            });
    for (int cut = 0; cut <= MIXED.length; cut++) {
      Recorder recorder = subscribe(FAST.withoutReconnect(), Long.MAX_VALUE);
      recorder.done.get(10, TimeUnit.SECONDS);
      assertThat(recorder.events).as("cut at %d", cut).isEqualTo(MIXED_EVENTS);
    }
    assertThat(server.requests).hasSize(MIXED.length + 1);
  }

  @Test
  void everyByteItsOwnChunkOverHttp() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              for (byte b : MIXED) {
                x.send(new byte[] {b});
              }
              x.end();
            });
    Recorder recorder = subscribe(FAST.withoutReconnect(), Long.MAX_VALUE);
    recorder.done.get(10, TimeUnit.SECONDS);
    assertThat(recorder.events).isEqualTo(MIXED_EVENTS);
  }

  @Test
  void slowConsumerGetsNoMoreThanItRequests() throws Exception {
    int count = 200;
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              StringBuilder chunk = new StringBuilder();
              for (int n = 0; n < count; n++) {
                chunk.append("data: ").append(n).append(" ").append("x".repeat(500)).append("\n\n");
                if (n % 20 == 19) {
                  x.send(chunk.toString());
                  chunk.setLength(0);
                }
              }
              x.end();
            });
    Recorder recorder = subscribe(FAST.withoutReconnect(), 0);
    for (int n = 0; n < count; n++) {
      recorder.request(1);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (recorder.events.size() < n + 1 && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      if (n % 50 == 0) {
        Thread.sleep(20); // give the source a chance to over-deliver
      }
      assertThat(recorder.events).hasSize(n + 1);
    }
    recorder.done.get(5, TimeUnit.SECONDS);
    assertThat(recorder.overDelivered).hasValue(0);
    assertThat(recorder.events.get(count - 1).data()).startsWith((count - 1) + " ");
  }

  @Test
  void reconnectsWithLastEventIdAfterRetry() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              switch (i) {
                case 0 -> {
                  x.eventStream();
                  x.send("retry: 150\nid: 1\ndata: a\n\ndata: incomplete");
                  x.drop();
                }
                case 1 -> {
                  x.eventStream();
                  x.send("id: 2\ndata: b\n\n");
                  x.end();
                }
                default -> x.status(204, null);
              }
            });
    Recorder recorder = subscribe(SseOptions.defaults(), Long.MAX_VALUE);
    recorder.done.get(10, TimeUnit.SECONDS);
    assertThat(recorder.events).extracting(SseEvent::data).containsExactly("a", "b");
    assertThat(server.requests).hasSize(3);
    assertThat(server.requests.get(1).headers()).containsEntry("last-event-id", "1");
    assertThat(server.requests.get(2).headers()).containsEntry("last-event-id", "2");
    long waitedMillis =
        (server.requests.get(1).nanoTime() - server.requests.get(0).nanoTime()) / 1_000_000;
    assertThat(waitedMillis).isGreaterThanOrEqualTo(150).isLessThan(3_000);
  }

  @Test
  void errorStatusDuringReconnectionFailsWithoutFurtherAttempts() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              if (i == 0) {
                x.eventStream();
                x.send("id: a\ndata: first\n\n");
                x.drop();
              } else {
                x.status(503, "text/plain");
                x.send("busy");
                x.end();
              }
            });
    Recorder recorder = subscribe(FAST, Long.MAX_VALUE);
    Throwable error = recorder.awaitError();
    assertThat(error)
        .isInstanceOfSatisfying(
            CallError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
              assertThat(e.details().orElseThrow().get("body").asString()).isEqualTo("busy");
            });
    assertThat(recorder.events).extracting(SseEvent::data).containsExactly("first");
    Thread.sleep(100);
    assertThat(server.requests).hasSize(2);
    assertThat(server.requests.get(1).headers()).containsEntry("last-event-id", "a");
  }

  @Test
  void noContentStopsWithoutReconnecting() throws Exception {
    server = new SseTestServer((i, x) -> x.status(204, null));
    Recorder recorder = subscribe(FAST, Long.MAX_VALUE);
    recorder.done.get(10, TimeUnit.SECONDS);
    Thread.sleep(100);
    assertThat(recorder.events).isEmpty();
    assertThat(server.requests).hasSize(1);
  }

  @Test
  void serverErrorFailsWithStatusAndBodyExcerpt() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              x.status(500, "text/plain");
              x.send("boom ".repeat(2000));
              x.end();
            });
    Recorder recorder = subscribe(FAST.withMaxErrorBodyBytes(100), Long.MAX_VALUE);
    Throwable error = recorder.awaitError();
    assertThat(error).isInstanceOf(CallError.class).hasMessageContaining("HTTP 500");
    CallError callError = (CallError) error;
    assertThat(callError.code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
    assertThat(callError.details().orElseThrow().get("statusCode").asInt()).isEqualTo(500);
    assertThat(callError.details().orElseThrow().get("body").asString())
        .hasSize(100)
        .startsWith("boom boom");
    Thread.sleep(100);
    assertThat(server.requests).hasSize(1);
  }

  @Test
  void wrongContentTypeFails() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              x.status(200, "application/json");
              x.send("{}");
              x.end();
            });
    Throwable error = subscribe(FAST, Long.MAX_VALUE).awaitError();
    assertThat(error)
        .isInstanceOfSatisfying(
            CallError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
              assertThat(e.getMessage()).contains("application/json");
            });
  }

  @Test
  void reconnectAttemptsAreBounded() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              x.send(": nothing\n");
              x.end();
            });
    Throwable error = subscribe(FAST.withMaxReconnects(2), Long.MAX_VALUE).awaitError();
    assertThat(error)
        .isInstanceOfSatisfying(
            CallError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
              assertThat(e.getMessage()).contains("SseOptions.maxReconnects");
            });
    Thread.sleep(100);
    assertThat(server.requests).hasSize(3);
  }

  @Test
  void attemptsResetAfterAnEvent() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              if (i >= 6) {
                x.status(204, null);
                return;
              }
              x.eventStream();
              if (i % 2 == 1) {
                x.send("data: " + i + "\n\n");
              }
              x.end();
            });
    Recorder recorder = subscribe(FAST.withMaxReconnects(2), Long.MAX_VALUE);
    recorder.done.get(10, TimeUnit.SECONDS);
    assertThat(recorder.events).extracting(SseEvent::data).containsExactly("1", "3", "5");
  }

  @Test
  void retryZeroAndOneEventPerConnectionIsBoundedByTheMinimumDelayAndTheBudget() throws Exception {
    // A server that sends one event and retry: 0, then closes: every connection "delivers", so
    // the in-a-row count never runs out; the floor and the per-minute budget stop the loop.
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              x.send("retry: 0\ndata: " + i + "\n\n");
              x.end();
            });
    SseOptions options =
        FAST.withMinRetry(Duration.ofMillis(100)).withReconnectBudget(5).withMaxReconnects(5);
    long started = System.nanoTime();
    Recorder recorder = subscribe(options, Long.MAX_VALUE);
    Throwable error = recorder.awaitError();
    long tookMs = (System.nanoTime() - started) / 1_000_000;
    assertThat(error)
        .isInstanceOfSatisfying(
            CallError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
              assertThat(e.getMessage()).contains("5 reconnections within a minute");
            });
    assertThat(server.requests).hasSize(6); // the first connection and 5 reconnections
    assertThat(recorder.events).hasSize(6);
    assertThat(tookMs).as("5 reconnections at least 100 ms apart").isGreaterThanOrEqualTo(500);
  }

  @Test
  void theDefaultsWaitHalfASecondEvenWhenTheServerSaysRetryZero() {
    assertThat(SseOptions.defaults().minRetry()).isEqualTo(Duration.ofMillis(500));
    assertThat(SseOptions.defaults().reconnectBudget()).isEqualTo(30);
  }

  @Test
  void onDropReconnectsAfterADropButEndsWhenTheServerEndsTheResponse() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              if (i == 0) {
                x.send("retry: 150\nid: 1\ndata: a\n\ndata: incomplete");
                x.drop(); // a failure: connected to again
              } else {
                x.send("id: 2\ndata: b\n\n");
                x.end(); // the server's end: the end of the stream
              }
            });
    Recorder recorder = subscribe(FAST.withReconnect(SseOptions.Reconnect.ON_DROP), Long.MAX_VALUE);
    recorder.done.get(10, TimeUnit.SECONDS);
    assertThat(recorder.events).extracting(SseEvent::data).containsExactly("a", "b");
    assertThat(server.requests).hasSize(2);
    assertThat(server.requests.get(1).headers()).containsEntry("last-event-id", "1");
  }

  @Test
  void withoutReconnectCompletesWhenStreamEnds() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              x.send("data: only\n\n");
              x.end();
            });
    Recorder recorder = subscribe(FAST.withoutReconnect(), Long.MAX_VALUE);
    recorder.done.get(10, TimeUnit.SECONDS);
    assertThat(recorder.events).extracting(SseEvent::data).containsExactly("only");
    assertThat(server.requests).hasSize(1);
  }

  @Test
  void cancelClosesTheServerConnectionAndStopsReconnecting() throws Exception {
    CountDownLatch serverSawClose = new CountDownLatch(1);
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              try {
                for (int n = 0; n < 500; n++) {
                  x.send("data: " + n + "\n\n");
                  Thread.sleep(10);
                }
              } catch (IOException e) {
                serverSawClose.countDown();
              }
            });
    Recorder recorder = new Recorder(Long.MAX_VALUE, 3);
    SseEventSource.open(client, HttpRequest.newBuilder(server.uri()).build(), FAST)
        .subscribe(recorder);
    assertThat(recorder.firstEvents.await(5, TimeUnit.SECONDS)).isTrue();
    recorder.subscription.cancel();
    int seen = recorder.events.size();
    assertThat(serverSawClose.await(5, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(100);
    assertThat(recorder.events.size()).isLessThanOrEqualTo(seen + 1);
    assertThat(recorder.done).isNotDone();
    assertThat(server.requests).hasSize(1);
  }

  @Test
  void connectionRefusedFailsUnavailable() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    Recorder recorder = new Recorder(Long.MAX_VALUE, 1);
    SseEventSource.open(
            client,
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).build(),
            FAST)
        .subscribe(recorder);
    assertThat(recorder.awaitError())
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
  }

  @Test
  void responseTimeoutFailsDeadlineExceeded() throws Exception {
    server = new SseTestServer((i, x) -> Thread.sleep(3_000));
    Throwable error =
        subscribe(FAST.withResponseTimeout(Duration.ofMillis(200)), Long.MAX_VALUE).awaitError();
    assertThat(error)
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
  }

  @Test
  void lineLimitFailsTheStream() throws Exception {
    server =
        new SseTestServer(
            (i, x) -> {
              x.eventStream();
              x.send("data: " + "y".repeat(5000) + "\n\n");
              x.end();
            });
    Throwable error =
        subscribe(FAST.withLimits(SseLimits.defaults().withMaxLineBytes(1000)), Long.MAX_VALUE)
            .awaitError();
    assertThat(error)
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED));
  }
}
