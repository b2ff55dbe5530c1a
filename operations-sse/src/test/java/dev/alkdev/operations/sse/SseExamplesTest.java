package dev.alkdev.operations.sse;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The examples of operations-sse/README.md (cut from the regions marked {@code snippet}): a server
 * writing events with {@link SseWriter}, read back by {@link SseEventSource}, and the parser alone.
 */
@Timeout(20)
class SseExamplesTest {

  @Test
  void aServerWritesEventsAndTheEventSourceReadsThem() throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/events", SseExamplesTest::serve);
    server.start();
    try {
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/events");
      Collector subscriber = new Collector();

      // snippet: read
      HttpClient client = HttpClient.newHttpClient();
      HttpRequest request = HttpRequest.newBuilder(uri).build();
      Flow.Publisher<SseEvent> events =
          SseEventSource.open(client, request, SseOptions.defaults().withoutReconnect());
      events.subscribe(subscriber); // one connection per subscriber
      // end-snippet

      assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isNull();
      assertThat(subscriber.events)
          .containsExactly(
              new SseEvent("message", "{\"n\":1}", Optional.of("1"), OptionalLong.empty()),
              new SseEvent("message", "{\"n\":2}", Optional.of("2"), OptionalLong.empty()),
              new SseEvent("message", "{\"n\":3}", Optional.of("3"), OptionalLong.empty()),
              new SseEvent("end", "bye", Optional.of("3"), OptionalLong.empty()));
    } finally {
      server.stop(0);
    }
  }

  private static void serve(HttpExchange exchange) throws IOException {
    // snippet: write
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
    exchange.getResponseHeaders().set("Cache-Control", "no-cache");
    exchange.sendResponseHeaders(200, 0);
    try (SseWriter sse = SseWriter.to(exchange.getResponseBody())) {
      sse.retry(Duration.ofSeconds(2)); // how long clients wait before reconnecting
      for (int n = 1; n <= 3; n++) {
        sse.write(SseEvent.message("{\"n\":" + n + "}").withId(Integer.toString(n)));
        sse.flush(); // each event reaches the client now
      }
      sse.comment(""); // a keep-alive line; clients ignore it
      sse.write(SseEvent.message("bye").withType("end"));
    } // close: flushes and ends the response
    // end-snippet
  }

  @Test
  void theParserAlone() {
    // snippet: parse
    List<SseEvent> received = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), received::add);
    byte[] stream = "id: 7\nevent: tick\ndata: {\"n\":1}\n\n".getBytes(StandardCharsets.UTF_8);
    parser.feed(stream, 0, stream.length); // pieces of any size, as they arrive
    parser.end(); // an event not ended by a blank line is dropped here
    // received: [SseEvent[type=tick, data={"n":1}, id=Optional[7], retry=OptionalLong.empty]]
    // end-snippet
    assertThat(received)
        .containsExactly(new SseEvent("tick", "{\"n\":1}", Optional.of("7"), OptionalLong.empty()));
  }

  /** Requests everything and records it. */
  private static final class Collector implements Flow.Subscriber<SseEvent> {
    final List<SseEvent> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(SseEvent event) {
      events.add(event);
    }

    @Override
    public void onError(Throwable error) {
      done.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }
  }
}
