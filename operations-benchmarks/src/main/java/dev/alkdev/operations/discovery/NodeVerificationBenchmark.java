package dev.alkdev.operations.discovery;

import dev.alkdev.operations.OperationSpec;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 34's discovery figure: what verification adds to reading one node's hello (10 specs with
 * small schemas): decoding it and checking its Ed25519 signature against a trusted key (a proof not
 * seen before), or finding its proof among those checked already, against decoding the same hello
 * unsigned and believing it (the baseline); and what signing costs the serving side. In the
 * discovery package (the benchmarks run on the class path) because the message codec and the check
 * are internal: through the public API the figure would be buried under a bus and a catalog's
 * bookkeeping.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class NodeVerificationBenchmark {
  private static final int MAX_BYTES = 1 << 20;

  private byte[] unsigned;
  private byte[] signed;
  private NodeSigner signer;
  private TrustedNodes trust;
  private ProofChecks checks;
  private String digest;

  @Setup
  public void setUp() {
    KeyPair pair = NodeKeys.generate();
    signer = NodeSigner.of("billing", pair.getPrivate());
    trust = TrustedNodes.builder().key("billing", pair.getPublic(), "*").build();
    List<OperationSpec> specs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      specs.add(
          OperationSpec.builder("bench", "op" + i)
              .inputSchema(
                  "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},"
                      + "\"required\":[\"n\"]}")
              .build());
    }
    digest = NodeEvents.digest(specs);
    checks = new ProofChecks(trust);
    unsigned =
        NodeEvents.encode(
            new NodeEvent.Hello("node-1", digest, 2000, Optional.of(specs), Optional.empty()));
    signed =
        NodeEvents.encode(
            new NodeEvent.Hello(
                "node-1",
                digest,
                2000,
                Optional.of(specs),
                Optional.of(signer.prove("node-1", digest, System.currentTimeMillis()))));
    if (!signedHelloSeenBefore().verified()) {
      throw new IllegalStateException("the benchmark's hello did not verify");
    }
  }

  @Benchmark
  public NodeProof baselineUnsignedHello() {
    NodeEvent.Hello hello = (NodeEvent.Hello) NodeEvents.decode(unsigned, MAX_BYTES);
    return NodeProof.unchecked(hello, Optional.empty());
  }

  @Benchmark
  public NodeProof signedHelloVerified() {
    NodeEvent.Hello hello = (NodeEvent.Hello) NodeEvents.decode(signed, MAX_BYTES);
    NodeProof proof = trust.check(hello, Optional.empty(), System.currentTimeMillis());
    if (!proof.verified()) {
      throw new IllegalStateException("the benchmark's hello did not verify: " + proof);
    }
    return proof;
  }

  /**
   * A hello whose proof this catalog verified already (a node sends one proof for a minute, and in
   * answer to every query): decoded, compared with the proof kept, checked for age.
   */
  @Benchmark
  public NodeProof signedHelloSeenBefore() {
    NodeEvent.Hello hello = (NodeEvent.Hello) NodeEvents.decode(signed, MAX_BYTES);
    return checks.prove(hello, Optional.empty(), System.currentTimeMillis());
  }

  /** The serving side: signing a hello (once a minute, or when its specs change). */
  @Benchmark
  public NodeEvent.Proof signHello() {
    return signer.prove("node-1", digest, System.currentTimeMillis());
  }
}
