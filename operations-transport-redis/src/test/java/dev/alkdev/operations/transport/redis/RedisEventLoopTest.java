package dev.alkdev.operations.transport.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.remote.internal.ReplyFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * D87: a transport's connections share one event loop of the shared group, and their flushes are
 * consolidated; the per-transport resources share every component with the shared ones.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisEventLoopTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static RedisServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = RedisServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private static RedisPubSub connect() {
    return RedisPubSub.connect(RedisOptions.builder(server.url()).build());
  }

  @Test
  void aServedRequestAndItsTransportsPublishAnswersRunOnOneEventLoop() throws Exception {
    AtomicReference<Thread> served = new AtomicReference<>();
    try (RedisPubSub serving = connect();
        RedisPubSub calling = connect();
        OperationRegistry registry = OperationRegistry.create()) {
      registry.register(
          OperationSpec.builder("loop", "where").build(),
          Handler.async(
              (in, ctx) -> {
                served.set(Thread.currentThread());
                return CompletableFuture.completedFuture(in);
              }));
      try (CallHandler handler = CallHandler.serve(registry, serving);
          PendingRequestMap calls = PendingRequestMap.create(calling)) {
        serving.flush(Duration.ofSeconds(5));
        calling.flush(Duration.ofSeconds(5));
        JsonNode input = JSON.readTree("{\"n\": 1}");
        assertThat(calls.call("loop.where", input).get(10, TimeUnit.SECONDS).data())
            .isEqualTo(input);

        // The serving transport's publish answers arrive on its command connection's loop (an
        // answer faster than the registration below completes on this thread instead: skipped).
        Set<Thread> answeredOnLoops = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 200 && answeredOnLoops.size() < 1; i++) {
          CompletableFuture<Void> done = new CompletableFuture<>();
          ReplyFuture.whenCompleteInline(
              serving.publish("ops.inbox.nobody" + i, "x".getBytes(UTF_8)),
              (count, error) -> {
                if (Thread.currentThread().getName().startsWith("lettuce-")) {
                  answeredOnLoops.add(Thread.currentThread());
                }
                done.complete(null);
              });
          done.get(10, TimeUnit.SECONDS);
        }
        assertThat(served.get().getName()).startsWith("lettuce-");
        assertThat(answeredOnLoops)
            .as("the command connection's loop is the subscriber connection's")
            .containsExactly(served.get());
      }
    }
  }

  @Test
  void closingTransportsLeavesTheSharedLoopsTimerAndPoolsToTheOthers() throws Exception {
    try (RedisPubSub stays = connect()) {
      for (int round = 0; round < 3; round++) {
        List<RedisPubSub> others = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          others.add(connect());
        }
        for (RedisPubSub other : others) {
          assertThat(other.publish("loop.x", new byte[] {1}).get(5, TimeUnit.SECONDS)).isZero();
          other.close();
        }
        // Closing is asynchronous: give it the time it takes, then use what is left.
        Thread.sleep(300);
        RedisPubSubTest.Inbox inbox = new RedisPubSubTest.Inbox();
        try (var subscription = stays.subscribe("loop.round", SubscribeOptions.defaults(), inbox)) {
          stays.flush(Duration.ofSeconds(5));
          for (int i = 0; i < 100; i++) {
            assertThat(
                    stays.publish("loop.round", ("m" + i).getBytes(UTF_8)).get(5, TimeUnit.SECONDS))
                .isEqualTo(1);
          }
          List<String> expected = new ArrayList<>();
          for (int i = 0; i < 100; i++) {
            expected.add("m" + i);
          }
          assertThat(inbox.texts(100)).containsExactlyElementsOf(expected);
        }
        try (RedisPubSub fresh = connect()) {
          assertThat(fresh.isConnected()).isTrue();
        }
      }
    }
  }

  @Test
  void publishesWrittenFromManyThreadsAtOnceAllGoOut() throws Exception {
    // Consolidated flushes must never leave a command unwritten: bursts from several threads,
    // each publish answered.
    try (RedisPubSub publisher = connect();
        RedisPubSub subscriber = connect()) {
      RedisPubSubTest.Inbox inbox = new RedisPubSubTest.Inbox();
      subscriber.subscribe("loop.burst", SubscribeOptions.defaults(), inbox);
      subscriber.flush(Duration.ofSeconds(5));
      int threads = 4;
      int each = 2_000;
      List<Thread> writers = new ArrayList<>();
      List<CompletableFuture<Integer>> answers = Collections.synchronizedList(new ArrayList<>());
      for (int t = 0; t < threads; t++) {
        int id = t;
        Thread writer =
            new Thread(
                () -> {
                  for (int i = 0; i < each; i++) {
                    answers.add(publisher.publish("loop.burst", (id + ":" + i).getBytes(UTF_8)));
                  }
                });
        writer.start();
        writers.add(writer);
      }
      for (Thread writer : writers) {
        writer.join();
      }
      CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      assertThat(answers).allSatisfy(a -> assertThat(a.join()).isEqualTo(1));
      int[] next = new int[threads];
      for (String text : inbox.texts(threads * each)) {
        String[] parts = text.split(":");
        int writer = Integer.parseInt(parts[0]);
        assertThat(Integer.parseInt(parts[1]))
            .as("writer %d in order", writer)
            .isEqualTo(next[writer]);
        next[writer]++;
      }
    }
  }
}
