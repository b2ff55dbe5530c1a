package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.serving.OperationServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Node.js spoke of {@code clients/node} (written from the protocol docs alone, on the {@code
 * ws} package) against a Java hub: it calls a Java operation, serves one that a Java caller calls,
 * and consumes a Java stream with demand, then cancels it; it announces itself as a discovery node,
 * so a Java catalog lists and calls its operation. The {@code ws} package is installed by {@code
 * npm install} in {@code clients/node} when missing (scripts/install-deps.sh does the same).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeSpokeInteropTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static Path client;

  @BeforeAll
  static void installClient() throws Exception {
    client = Path.of("").toAbsolutePath().getParent().resolve("clients/node");
    Assumptions.assumeTrue(Files.isRegularFile(client.resolve("ops-spoke.js")), "no clients/node");
    Assumptions.assumeTrue(run(client, 10, "node", "--version") == 0, "node is not installed");
    if (!Files.isDirectory(client.resolve("node_modules/ws"))) {
      int status = run(client, 120, "npm", "install", "--no-audit", "--no-fund");
      Assumptions.assumeTrue(status == 0, "npm install in clients/node failed");
    }
  }

  private static int run(Path dir, int seconds, String... command) throws Exception {
    try {
      Process process =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      process.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return -1;
      }
      return process.exitValue();
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * The Node spoke against hubs that stop answering (test/timeouts.js runs its own): a publish
   * fails with UNAVAILABLE after its ack timeout, a connect that times out closes its socket.
   */
  @Test
  void theNodeSpokeTimesOutWaitsForAHubThatStopsAnswering() throws Exception {
    assertThat(run(client, 30, "node", "test/timeouts.js")).isZero();
  }

  /** clients/node's README example, run as it is (its file is the README's code block). */
  @Test
  void theReadmeExampleRunsAsWritten() throws Exception {
    String readme = Files.readString(client.resolve("README.md"));
    String example = Files.readString(client.resolve("examples/quick-start.js"));
    assertThat(readme).as("the README shows the example as it is").contains(example);
    try (OperationRegistry registry = OperationRegistry.create();
        OperationServer server = OperationServer.create(registry)) {
      registry.register(
          OperationSpec.builder("demo", "echo").build(),
          Handler.blocking((in, ctx) -> Map.of("message", in.get("message").asString())));
      registry.register(
          OperationSpec.builder("demo", "clock").type(OperationType.SUBSCRIPTION).build(),
          Handler.emitter(
              (in, ctx, emitter) -> {
                for (int i = 1; i <= in.get("ticks").asInt(); i++) {
                  emitter.emit(Map.of("tick", i));
                }
              }));
      Map<String, Identity> tokens =
          Map.of("node-token", Identity.of("node-spoke", "ops:call:*", "ops:serve:node.*"));
      try (WebSocketHub hub =
          WebSocketHub.builder()
              .authenticator(Authenticator.bearerTokens(tokens))
              .permissions(SpokePermissions.byScopes())
              .serve(server)
              .start()) {
        ProcessBuilder builder =
            new ProcessBuilder("node", "examples/quick-start.js")
                .directory(client.toFile())
                .redirectErrorStream(true);
        builder.environment().put("HUB_URL", hub.uri().toString());
        builder.environment().put("OPS_WS_TOKEN", "node-token");
        Process process = builder.start();
        process.getOutputStream().close();
        java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
        Thread reader =
            new Thread(
                () -> {
                  try {
                    process.getInputStream().transferTo(output);
                  } catch (IOException e) {
                    // the process ended
                  }
                },
                "quick-start-output");
        reader.start();
        boolean ended = process.waitFor(30, TimeUnit.SECONDS);
        if (!ended) {
          process.destroyForcibly();
        }
        reader.join(5_000);
        String printed = output.toString(StandardCharsets.UTF_8);
        assertThat(ended).as(printed).isTrue();
        assertThat(process.exitValue()).as(printed).isZero();
        assertThat(printed).contains("message: 'hi'").contains("tick: 1").contains("tick: 5");
      }
    }
  }

  @Test
  void aNodeSpokeCallsServesAndStreams() throws Exception {
    CountDownLatch streamCancelled = new CountDownLatch(1);
    AtomicReference<Identity> greeted = new AtomicReference<>();
    try (OperationRegistry registry = OperationRegistry.create();
        OperationServer server = OperationServer.create(registry)) {
      registry.register(
          OperationSpec.builder("java", "greet").build(),
          Handler.blocking(
              (in, ctx) -> {
                greeted.set(ctx.identity());
                return "hello, " + in.get("name").asString();
              }));
      registry.register(
          OperationSpec.builder("java", "count").type(OperationType.SUBSCRIPTION).build(),
          Handler.emitter(
              (in, ctx, emitter) -> {
                try {
                  for (int i = 0; ; i++) {
                    emitter.emit(i);
                  }
                } finally {
                  streamCancelled.countDown();
                }
              }));
      Map<String, Identity> tokens =
          Map.of(
              "node-token", Identity.of("node-spoke", "ops:call:*", "ops:serve:node.*"),
              "alice-token", Identity.of("alice", "ops:call:*"));
      try (WebSocketHub hub =
              WebSocketHub.builder()
                  .authenticator(Authenticator.bearerTokens(tokens))
                  .permissions(SpokePermissions.byScopes())
                  .serve(server)
                  .start();
          NodeProcess node = NodeProcess.start(client, hub, "node-token")) {
        assertThat(node.next().get("identity").get("subject").asString()).isEqualTo("node-spoke");
        assertThat(node.next().get("event").asString()).isEqualTo("serving");

        JsonNode called = node.next();
        assertThat(called.get("data").asString()).isEqualTo("hello, node");
        assertThat(called.get("source").asString()).isEqualTo("local");
        assertThat(greeted.get().subject()).isEqualTo("node-spoke");
        assertThat(node.next().get("code").asString()).isEqualTo("NO_RESPONDERS");

        JsonNode streamed = node.next();
        assertThat(streamed.get("items").toString()).isEqualTo("[0,1,2,3,4]");
        assertThat(streamCancelled.await(10, TimeUnit.SECONDS))
            .as("the Node spoke's call.aborted cancelled the Java stream")
            .isTrue();

        try (WebSocketSpoke alice =
                WebSocketSpoke.connect(
                    SpokeOptions.builder(hub.uri()).bearerToken("alice-token").build());
            PendingRequestMap calls = PendingRequestMap.create(alice)) {
          alice.flush(Duration.ofSeconds(5));
          JsonNode upper =
              calls
                  .call("node.upper", JSON.readTree("{\"text\": \"hi there\"}"))
                  .get(10, TimeUnit.SECONDS)
                  .data();
          assertThat(upper.get("text").asString()).isEqualTo("HI THERE");
          assertThat(upper.get("caller").asString())
              .as("the identity the hub authenticated, not one in the payload")
              .isEqualTo("alice");

          // The Node spoke announced itself: a catalog lists its operation with its schema,
          // validates input against it, and routes to the node.
          try (RemoteCatalog catalog = RemoteCatalog.create(alice)) {
            WebSocketHubTest.Waits.eventually(
                "the catalog lists node.upper", () -> catalog.spec("node.upper").isPresent());
            assertThat(catalog.spec("node.upper").get().description())
                .isEqualTo("Upper-cases text");
            assertThat(
                    catalog
                        .call("node.upper", JSON.readTree("{\"text\": \"via discovery\"}"))
                        .get(10, TimeUnit.SECONDS)
                        .data()
                        .get("text")
                        .asString())
                .isEqualTo("VIA DISCOVERY");
            assertThat(
                    catalog
                        .call("node.upper", JSON.readTree("{}"))
                        .handle((ok, error) -> error)
                        .get(10, TimeUnit.SECONDS))
                .hasMessageContaining("text");
          }
        }
      }
    }
  }

  /** The interop script as a child process: one JSON line per result on its stdout. */
  static final class NodeProcess implements AutoCloseable {
    private final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private NodeProcess(Process process) {
      this.process = process;
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = in.readLine()) != null) {
                    lines.add(line);
                  }
                } catch (IOException e) {
                  // the process ended
                }
              },
              "node-spoke-stdout");
      reader.setDaemon(true);
      reader.start();
    }

    static NodeProcess start(Path client, WebSocketHub hub, String token) throws IOException {
      ProcessBuilder builder =
          new ProcessBuilder("node", "test/interop.js")
              .directory(client.toFile())
              .redirectError(ProcessBuilder.Redirect.INHERIT);
      builder.environment().put("HUB_URL", hub.uri().toString());
      builder.environment().put("OPS_WS_TOKEN", token);
      return new NodeProcess(builder.start());
    }

    JsonNode next() throws InterruptedException {
      String line = lines.poll(20, TimeUnit.SECONDS);
      assertThat(line).as("a line from the Node spoke within 20 s").isNotNull();
      JsonNode json = JSON.readTree(line);
      assertThat(json.path("event").asString()).as(line).isNotEqualTo("failed");
      return json;
    }

    @Override
    public void close() throws Exception {
      process.getOutputStream().close(); // the script ends when its stdin does
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    }
  }
}
