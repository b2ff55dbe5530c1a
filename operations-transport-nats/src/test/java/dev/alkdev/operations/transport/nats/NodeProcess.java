package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.discovery.ServingNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A serving node in a process of its own, for tests that kill it with SIGKILL: serves {@code
 * slow.hold} (a MUTATION that holds until cancelled) and {@code slow.ticks} (a stream of a tick
 * every 50 ms) on NATS, and prints {@code READY <nodeId>} once announced.
 */
public final class NodeProcess {
  private NodeProcess() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    Duration heartbeat = Duration.ofMillis(Long.parseLong(args[1]));
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("slow", "hold").type(OperationType.MUTATION).build(),
        Handler.blocking(
            (in, ctx) -> {
              while (true) {
                ctx.throwIfDone();
                Thread.sleep(10);
              }
            }));
    registry.register(
        OperationSpec.builder("slow", "ticks").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, emitter) -> {
              for (int i = 0; ; i++) {
                ctx.throwIfDone();
                emitter.emit(java.util.Map.of("tick", i));
                Thread.sleep(50);
              }
            }));
    NatsPubSub pubsub = NatsPubSub.connect(NatsOptions.builder(url).build());
    ServingNode node = ServingNode.builder(registry, pubsub).heartbeatInterval(heartbeat).start();
    pubsub.flush(Duration.ofSeconds(5));
    System.out.println("READY " + node.nodeId());
    System.out.flush();
    Thread.sleep(TimeUnit.MINUTES.toMillis(2)); // the test kills it long before
    System.exit(3);
  }

  /** Starts a node process on {@code url}, returned once it printed READY. */
  static Process start(String url, Duration heartbeat) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(NodeProcess.class.getName());
    command.add(url);
    command.add(Long.toString(heartbeat.toMillis()));
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    var out =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(
                process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
    String line = out.readLine();
    if (line == null || !line.startsWith("READY ")) {
      process.destroyForcibly();
      throw new IOException("the node process did not start: " + line);
    }
    return process;
  }
}
