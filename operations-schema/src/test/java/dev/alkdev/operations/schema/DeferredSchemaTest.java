package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

@Timeout(30)
class DeferredSchemaTest {
  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final String DOCUMENT =
      "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"default\":1}}}";

  @Test
  void nothingIsMadeUntilFirstUseAndThenOnlyOnce() {
    AtomicInteger made = new AtomicInteger();
    Schema schema =
        Schema.deferred(
            () -> {
              made.incrementAndGet();
              return Schema.fromJson(DOCUMENT);
            });

    assertThat(made).hasValue(0);
    assertThat(schema.toString()).isEqualTo("Schema(deferred, not made yet)");

    assertThat(schema.validate(JSON.readTree("{\"n\":\"x\"}"))).hasSize(1);
    assertThat(schema.cast(JSON.readTree("{}")).toString()).isEqualTo("{\"n\":1}");
    assertThat(schema.isUnknown()).isFalse();
    assertThat(schema.json()).isEqualTo(Schema.fromJson(DOCUMENT).json());
    assertThat(made).hasValue(1);
    assertThat(schema).isEqualTo(Schema.fromJson(DOCUMENT));
    assertThat(schema).hasSameHashCodeAs(Schema.fromJson(DOCUMENT));
  }

  @Test
  void aDocumentThatDoesNotCompileFailsEveryUseTheSameWayWithoutRetrying() {
    AtomicInteger asked = new AtomicInteger();
    Schema schema =
        Schema.deferred(
            () -> {
              asked.incrementAndGet();
              return Schema.fromJson("{\"type\": 12}");
            });

    assertThatThrownBy(() -> schema.validate(JSON.readTree("1")))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("Invalid schema");
    Throwable second = org.assertj.core.api.Assertions.catchThrowable(schema::json);
    assertThat(second).isInstanceOf(SchemaException.class);
    assertThat(asked).hasValue(1);
  }

  @Test
  void aSupplierThatReturnsNothingIsAClearError() {
    Schema schema = Schema.deferred(() -> null);

    assertThatThrownBy(schema::isUnknown)
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("supplier returned null");
  }

  @Test
  void manyThreadsAtOnceMakeItOnce() throws Exception {
    AtomicInteger made = new AtomicInteger();
    Schema schema =
        Schema.deferred(
            () -> {
              made.incrementAndGet();
              return Schema.fromJson(DOCUMENT);
            });
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> results = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return schema.isValid(JSON.readTree("{\"n\":2}"));
                }));
      }
      start.countDown();
      for (Future<Boolean> result : results) {
        assertThat(result.get(10, TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(made).hasValue(1);
  }
}
