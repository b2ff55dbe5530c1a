package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.discovery.NodeKeys;
import dev.alkdev.operations.discovery.NodeSigner;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.discovery.TrustedNodes;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;

/**
 * Issue 34's call figure: a unary call through a {@link RemoteCatalog} that requires verified nodes
 * (a signed node, a trusted key), against the same call through a catalog that believes every node
 * (the baseline), both on one in-process bus to one node. Verification happens when a hello
 * arrives; on a call only the routing filter remains.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class VerifiedCallBenchmark {
  private InProcessPubSub bus;
  private OperationRegistry registry;
  private ServingNode node;
  private RemoteCatalog verifying;
  private RemoteCatalog believing;
  private final Map<String, Object> input = Map.of("n", 42);

  @Setup
  public void setUp() {
    KeyPair pair = NodeKeys.generate();
    bus = InProcessPubSub.create();
    registry = OperationRegistry.create();
    registry.register(OperationSpec.builder("bench", "echo").build(), (in, ctx) -> in);
    node =
        ServingNode.builder(registry, bus)
            .nodeId("bench-node")
            .signer(NodeSigner.of("bench", pair.getPrivate()))
            .start();
    verifying =
        RemoteCatalog.builder(bus)
            .trustedNodes(TrustedNodes.builder().key("bench", pair.getPublic(), "*").build())
            .build();
    believing = RemoteCatalog.builder(bus).build();
    for (RemoteCatalog catalog : new RemoteCatalog[] {verifying, believing}) {
      catalog.awaitSettled(Duration.ofMillis(200), Duration.ofSeconds(10));
      if (catalog.spec("bench.echo").isEmpty()) {
        throw new IllegalStateException("the node was not found");
      }
    }
  }

  @TearDown
  public void tearDown() {
    verifying.close();
    believing.close();
    node.close();
    registry.close();
    bus.close();
  }

  @Benchmark
  public ResponseEnvelope<JsonNode> baselineCallBelieving() throws Exception {
    return believing.call("bench.echo", input).get(10, TimeUnit.SECONDS);
  }

  @Benchmark
  public ResponseEnvelope<JsonNode> callVerifying() throws Exception {
    return verifying.call("bench.echo", input).get(10, TimeUnit.SECONDS);
  }
}
