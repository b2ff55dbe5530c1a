package dev.alkdev.operations.sse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.envelope.SseEventMeta;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

@Timeout(20)
class SseEnvelopesTest {
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Test
  void dataIsJsonWhenItParsesElseTheString() {
    assertThat(SseEnvelopes.data("{\"n\": 1}")).isInstanceOf(JsonNode.class);
    assertThat(((JsonNode) SseEnvelopes.data("{\"n\": 1}")).get("n").asInt()).isEqualTo(1);
    assertThat(((JsonNode) SseEnvelopes.data("42")).asInt()).isEqualTo(42);
    assertThat(((JsonNode) SseEnvelopes.data("\"quoted\"")).asString()).isEqualTo("quoted");
    assertThat(SseEnvelopes.data("hello")).isEqualTo("hello");
    assertThat(SseEnvelopes.data("42 and more")).isEqualTo("42 and more");
    assertThat(SseEnvelopes.data("{\"n\": 1}\n{\"n\": 2}")).isEqualTo("{\"n\": 1}\n{\"n\": 2}");
    assertThat(SseEnvelopes.data("")).isEqualTo("");
  }

  @Test
  void envelopeCarriesStatusHeadersAndEventMeta() {
    HttpResponseMeta response =
        HttpResponseMeta.of(200, Map.of("Content-Type", "text/event-stream"), "text/event-stream");
    ResponseEnvelope<Object> envelope =
        SseEnvelopes.toEnvelope(
            new SseEvent("tick", "{\"n\":3}", Optional.of("9"), OptionalLong.of(100)), response);
    HttpResponseMeta meta = (HttpResponseMeta) envelope.meta();
    assertThat(meta.statusCode()).isEqualTo(200);
    assertThat(meta.event())
        .hasValue(new SseEventMeta("tick", Optional.of("9"), OptionalLong.of(100)));
    assertThat(Envelopes.toJson(envelope).get("meta").get("event").get("type").asString())
        .isEqualTo("tick");
    assertThat(((JsonNode) envelope.data()).get("n").asInt()).isEqualTo(3);
  }

  static final class Collect implements Flow.Subscriber<ResponseEnvelope<Object>> {
    final List<ResponseEnvelope<Object>> items = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final CountDownLatch first = new CountDownLatch(1);

    @Override
    public void onSubscribe(Flow.Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(ResponseEnvelope<Object> item) {
      items.add(item);
      first.countDown();
    }

    @Override
    public void onError(Throwable error) {
      done.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }

    Throwable error() throws Exception {
      try {
        done.get(10, TimeUnit.SECONDS);
        throw new AssertionError("completed");
      } catch (ExecutionException e) {
        return e.getCause();
      }
    }
  }

  private static SseTestServer endless(CountDownLatch closed) throws IOException {
    return new SseTestServer(
        (i, x) -> {
          x.eventStream();
          try {
            for (int n = 0; n < 1000; n++) {
              x.send("event: tick\nid: " + n + "\ndata: {\"n\":" + n + "}\n\n");
              Thread.sleep(10);
            }
          } catch (IOException e) {
            closed.countDown();
          }
        });
  }

  @Test
  void streamsEnvelopesAndStopsOnCancellation() throws Exception {
    CountDownLatch closed = new CountDownLatch(1);
    try (SseTestServer server = endless(closed)) {
      OperationContext context = OperationContext.create();
      Collect collect = new Collect();
      SseEnvelopes.open(
              client, HttpRequest.newBuilder(server.uri()).build(), SseOptions.defaults(), context)
          .subscribe(collect);
      assertThat(collect.first.await(5, TimeUnit.SECONDS)).isTrue();
      context.cancellation().cancel(CallError.of(ErrorCode.CANCELLED, "caller gave up"));
      assertThat(collect.error()).hasMessage("caller gave up");
      assertThat(closed.await(5, TimeUnit.SECONDS)).isTrue();
      HttpResponseMeta meta = (HttpResponseMeta) collect.items.get(0).meta();
      assertThat(meta.contentType()).startsWith("text/event-stream");
      assertThat(meta.event().orElseThrow().type()).isEqualTo("tick");
      assertThat(meta.event().orElseThrow().id()).hasValue("0");
    }
  }

  @Test
  void stopsAtTheDeadline() throws Exception {
    CountDownLatch closed = new CountDownLatch(1);
    try (SseTestServer server = endless(closed)) {
      OperationContext context = OperationContext.builder().timeout(Duration.ofMillis(300)).build();
      Collect collect = new Collect();
      SseEnvelopes.open(
              client, HttpRequest.newBuilder(server.uri()).build(), SseOptions.defaults(), context)
          .subscribe(collect);
      assertThat(collect.error())
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
      assertThat(closed.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(collect.items).isNotEmpty();
    }
  }
}
