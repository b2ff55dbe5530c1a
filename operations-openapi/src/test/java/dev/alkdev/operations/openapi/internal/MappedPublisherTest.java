package dev.alkdev.operations.openapi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MappedPublisherTest {
  @Test
  void mapsSseDataToItemsAndFailsOnMapperError() throws Exception {
    List<Object> items = new CopyOnWriteArrayList<>();
    java.util.concurrent.CompletableFuture<Throwable> end =
        new java.util.concurrent.CompletableFuture<>();
    try (SubmissionPublisher<String> source = new SubmissionPublisher<>()) {
      MappedPublisher.map(
              source,
              (String data) -> {
                if (data.equals("boom")) {
                  throw new IllegalStateException("boom");
                }
                return MappedPublisher.sseItem(data);
              })
          .subscribe(
              new Flow.Subscriber<Object>() {
                public void onSubscribe(Flow.Subscription s) {
                  s.request(Long.MAX_VALUE);
                }

                public void onNext(Object item) {
                  items.add(item);
                }

                public void onError(Throwable t) {
                  end.complete(t);
                }

                public void onComplete() {
                  end.complete(null);
                }
              });
      source.submit("{\"a\":1}");
      source.submit("plain text");
      source.submit("");
      source.submit("boom");
      assertThat(end.get(5, TimeUnit.SECONDS)).isInstanceOf(CallError.class);
    }
    assertThat(items)
        .extracting(Object::toString)
        .containsExactly("{\"a\":1}", "\"plain text\"", "\"\"");
  }
}
