package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.protocol.CallEvent;
import dev.alkdev.operations.protocol.CallEvents;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 15-17's codec benchmark (D75): encoding and decoding one event of each type with the
 * streaming codec ({@link CallEvents#encode}, {@link CallEvents#decode}) against the tree codec it
 * replaced ({@link CallEvents#toJson} then a mapper's bytes; a mapper's tree then {@link
 * CallEvents#fromJson}), both with the same limits. {@link #main} runs them interleaved.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CallEventsCodecBenchmark {
  static final JsonMapper TREE_WRITER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamWriteConstraints(
                      StreamWriteConstraints.builder()
                          .maxNestingDepth(CallEvents.MAX_NESTING_DEPTH)
                          .build())
                  .build())
          .build();
  static final JsonMapper TREE_READER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(CallEvents.MAX_NESTING_DEPTH)
                          .maxDocumentLength(Integer.MAX_VALUE)
                          .build())
                  .build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  static final String ID = "0123456789abcdef0123456789abcdef";

  @Param({"requested", "responded", "error", "completed", "demand"})
  public String type;

  private CallEvent event;
  private byte[] bytes;

  static CallEvent event(String type) {
    JsonNode input = TREE_READER.readTree("{\"message\": \"ping\", \"n\": 42}");
    return switch (type) {
      case "requested" ->
          new CallEvent.Requested(
              ID,
              "bench.echo",
              input,
              Optional.empty(),
              Optional.of(new Identity("alice", Set.of("read", "write"))),
              OptionalLong.of(30_000),
              Optional.of("ops.inbox.00112233445566778899aabbccddeeff"),
              OptionalLong.empty());
      case "responded" -> new CallEvent.Responded(ID, Envelopes.localEnvelope(input, "bench.echo"));
      case "error" ->
          new CallEvent.Failed(ID, ErrorCode.UNAVAILABLE, "node gone", true, Optional.of(input));
      case "completed" -> new CallEvent.Completed(ID);
      case "demand" -> new CallEvent.Demand(ID, 16);
      default -> throw new IllegalArgumentException(type);
    };
  }

  @Setup
  public void setUp() {
    event = event(type);
    bytes = CallEvents.encode(event);
    if (!Arrays.equals(bytes, treeEncode(event))
        || !CallEvents.decode(bytes, Integer.MAX_VALUE).equals(treeDecode(bytes))) {
      throw new IllegalStateException("the codecs disagree on " + type);
    }
  }

  static byte[] treeEncode(CallEvent event) {
    return TREE_WRITER.writeValueAsBytes(CallEvents.toJson(event));
  }

  static CallEvent treeDecode(byte[] bytes) {
    return CallEvents.fromJson(TREE_READER.readTree(bytes));
  }

  @Benchmark
  public byte[] encodeStreaming() {
    return CallEvents.encode(event);
  }

  @Benchmark
  public byte[] baselineEncodeTree() {
    return treeEncode(event);
  }

  @Benchmark
  public CallEvent decodeStreaming() {
    return CallEvents.decode(bytes, CallEvents.DEFAULT_MAX_MESSAGE_BYTES);
  }

  @Benchmark
  public CallEvent baselineDecodeTree() {
    return treeDecode(bytes);
  }

  /**
   * Interleaved: per round and event type, a batch of each codec back to back (the order
   * alternating), and the median per operation over the rounds, in the thread's CPU time (a machine
   * shared with other work stretches wall-clock time with waits for a core).
   *
   * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
   *   dev.alkdev.operations.benchmarks.CallEventsCodecBenchmark [rounds]</pre>
   */
  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
    int batch = 20_000;
    String[] types = {"requested", "responded", "error", "completed", "demand"};
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    Object sink = null;
    for (String type : types) {
      CallEvent event = event(type);
      byte[] bytes = CallEvents.encode(event);
      double[][] nanos = new double[4][rounds];
      for (int r = -rounds / 3; r < rounds; r++) { // the first third warms up
        for (int k = 0; k < 4; k++) {
          int which = (r & 1) == 0 ? k : 3 - k;
          long start = threads.getCurrentThreadCpuTime();
          for (int i = 0; i < batch; i++) {
            sink =
                switch (which) {
                  case 0 -> CallEvents.encode(event);
                  case 1 -> treeEncode(event);
                  case 2 -> CallEvents.decode(bytes, CallEvents.DEFAULT_MAX_MESSAGE_BYTES);
                  default -> treeDecode(bytes);
                };
          }
          if (r >= 0) {
            nanos[which][r] = (double) (threads.getCurrentThreadCpuTime() - start) / batch;
          }
        }
      }
      double[] median = new double[4];
      for (int k = 0; k < 4; k++) {
        Arrays.sort(nanos[k]);
        median[k] = nanos[k][rounds / 2];
      }
      System.out.printf(
          "%-10s %4d bytes  CPU: encode %6.0f ns (tree %6.0f, %.2fx)  decode %6.0f ns (tree"
              + " %6.0f, %.2fx)%n",
          type,
          bytes.length,
          median[0],
          median[1],
          median[0] / median[1],
          median[2],
          median[3],
          median[2] / median[3]);
    }
    if (sink == null) {
      throw new IllegalStateException();
    }
  }
}
