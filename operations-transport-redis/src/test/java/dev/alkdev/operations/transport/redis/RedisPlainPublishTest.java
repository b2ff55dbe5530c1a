package dev.alkdev.operations.transport.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

/**
 * D83: callers' inboxes and serving nodes' own topics, which the call protocol never gives queue
 * groups, are published with a plain PUBLISH instead of the queue-group script, and refuse a
 * queue-group subscription. What the server ran is read from {@code INFO commandstats}, on a server
 * of each test's own: a closed subscription's group changes may reach the server after its test
 * ended.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisPlainPublishTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Duration WAIT = Duration.ofSeconds(10);
  private RedisServer server;

  @BeforeEach
  void startServer() throws Exception {
    server = RedisServer.start();
  }

  @AfterEach
  void stopServer() throws Exception {
    server.close();
  }

  @Test
  void inboxesAndNodeTopicsArePublishedPlainlyAndOtherTopicsThroughTheScript() throws Exception {
    try (RedisPubSub publisher = RedisPubSub.connect(RedisOptions.builder(server.url()).build());
        RedisPubSub subscriber = RedisPubSub.connect(RedisOptions.builder(server.url()).build())) {
      String inbox = ProtocolTopics.INBOX_PREFIX + "0123456789abcdef0123456789abcdef";
      // A private token's inbox is an inbox all the same.
      String privateInbox =
          ProtocolTopics.privateInboxPrefix("alice") + "0123456789abcdef0123456789abcdef";
      String nodeRequest = ProtocolTopics.nodeRequest("n1", "billing.refund");
      RedisPubSubTest.Inbox received = new RedisPubSubTest.Inbox();
      subscriber.subscribe(inbox, SubscribeOptions.defaults(), received);
      RedisPubSubTest.Inbox receivedPrivately = new RedisPubSubTest.Inbox();
      subscriber.subscribe(privateInbox, SubscribeOptions.defaults(), receivedPrivately);
      subscriber.flush(WAIT);
      server.command("CONFIG", "RESETSTAT");

      assertThat(publisher.publish(inbox, bytes("reply")).get(5, TimeUnit.SECONDS))
          .as("the subscribed connection")
          .isEqualTo(1);
      assertThat(publisher.publish(privateInbox, bytes("private")).get(5, TimeUnit.SECONDS))
          .isEqualTo(1);
      assertThat(publisher.publish(nodeRequest, bytes("request")).get(5, TimeUnit.SECONDS))
          .as("nobody: the node is gone")
          .isZero();
      assertThat(received.texts(1)).containsExactly("reply");
      assertThat(receivedPrivately.texts(1)).containsExactly("private");
      Map<String, Long> plain = calls();
      assertThat(plain.getOrDefault("publish", 0L)).isEqualTo(3);
      assertThat(plain.getOrDefault("evalsha", 0L)).isZero();
      assertThat(plain.getOrDefault("eval", 0L)).isZero();

      server.command("CONFIG", "RESETSTAT");
      for (String other : List.of(ProtocolTopics.NODES, ProtocolTopics.request("x.y"), "ops.x")) {
        assertThat(publisher.publish(other, bytes("m")).get(5, TimeUnit.SECONDS)).isZero();
      }
      assertThat(calls().getOrDefault("evalsha", 0L))
          .as("topics that may have groups keep the script")
          .isEqualTo(3);
    }
  }

  @Test
  void aQueueGroupSubscriptionToAnInboxOrANodeTopicIsRefusedSayingWhy() throws Exception {
    try (RedisPubSub client = RedisPubSub.connect(RedisOptions.builder(server.url()).build())) {
      for (String topic :
          List.of(
              ProtocolTopics.INBOX_PREFIX + "abc",
              ProtocolTopics.privateInboxPrefix("alice") + "abc",
              ProtocolTopics.nodeRequest("n1", "billing.refund"),
              ProtocolTopics.nodeSpecs("n1"))) {
        assertThatThrownBy(
                () -> client.subscribe(topic, SubscribeOptions.queueGroup("workers"), m -> {}))
            .as(topic)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(topic)
            .hasMessageContaining("queue group \"workers\"")
            .hasMessageContaining("one plain subscriber");
        // Plain subscriptions are what the protocol makes there.
        client.subscribe(topic, SubscribeOptions.defaults(), m -> {}).close();
      }
      // ops.nodes is not a node's own topic.
      client.subscribe(ProtocolTopics.NODES, SubscribeOptions.queueGroup("g"), m -> {}).close();
    }
  }

  /** D83's point: a call a RemoteCatalog routes to a node costs what a raw request/reply does. */
  @Test
  void aDiscoveryRoutedCallCostsExactlyTwoPublishesAndNoScript() throws Exception {
    try (RedisPubSub nodeSide = RedisPubSub.connect(RedisOptions.builder(server.url()).build());
        RedisPubSub callerSide = RedisPubSub.connect(RedisOptions.builder(server.url()).build());
        OperationRegistry registry = OperationRegistry.create()) {
      registry.register(
          OperationSpec.builder("plain", "echo").build(), Handler.blocking((in, ctx) -> in));
      try (ServingNode node =
              ServingNode.builder(registry, nodeSide)
                  // No heartbeat (a publish to ops.nodes, through the script) while counting.
                  .heartbeatInterval(Duration.ofMinutes(5))
                  .start();
          RemoteCatalog catalog = RemoteCatalog.create(callerSide)) {
        catalog.awaitSettled(Duration.ofMillis(250), Duration.ofSeconds(5));
        catalog.call("plain.echo", JSON.createObjectNode()).get(10, TimeUnit.SECONDS);
        server.command("CONFIG", "RESETSTAT");
        int n = 50;

        for (int i = 0; i < n; i++) {
          catalog.call("plain.echo", JSON.createObjectNode().put("i", i)).get(5, TimeUnit.SECONDS);
        }

        Map<String, Long> ran = calls();
        assertThat(ran.getOrDefault("publish", 0L)).as("request and reply").isEqualTo(2L * n);
        assertThat(ran.getOrDefault("evalsha", 0L)).isZero();
        assertThat(ran.getOrDefault("eval", 0L)).isZero();
      }
    }
  }

  private static final Pattern COMMAND_CALLS = Pattern.compile("cmdstat_(\\w+):calls=(\\d+)");

  /** Calls per command since the last CONFIG RESETSTAT, from {@code INFO commandstats}. */
  private Map<String, Long> calls() throws IOException {
    Map<String, Long> calls = new HashMap<>();
    Matcher m = COMMAND_CALLS.matcher(server.command("INFO", "commandstats"));
    while (m.find()) {
      calls.put(m.group(1), Long.parseLong(m.group(2)));
    }
    return calls;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }
}
