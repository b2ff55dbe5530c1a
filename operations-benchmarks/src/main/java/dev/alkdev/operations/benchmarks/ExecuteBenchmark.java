package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.AsyncOperationHandler;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationHandler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.concurrent.CompletableFuture;
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
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 3's benchmark: {@code execute()} of a QUERY with a 3-field input schema against calling its
 * handler directly. Target: at most 2 µs of overhead per call, input validation and envelope
 * included.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ExecuteBenchmark {
  private static final String INPUT_SCHEMA =
      """
      {"type": "object", "required": ["a", "b", "op"],
       "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                      "op": {"enum": ["add", "sub"]}}}""";

  private OperationRegistry registry;
  private JsonNode input;
  private AsyncOperationHandler async;
  private OperationHandler blocking;
  private OperationContext context;
  private dev.alkdev.operations.schema.Schema inputSchema;

  @Setup
  public void setUp() {
    input = JsonMapper.builder().build().readTree("{\"a\": 40, \"b\": 2, \"op\": \"add\"}");
    async = (in, ctx) -> CompletableFuture.completedFuture(compute(in));
    blocking = (in, ctx) -> compute(in);
    context = OperationContext.create();
    inputSchema = dev.alkdev.operations.schema.Schema.fromJson(INPUT_SCHEMA);
    registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("bench", "add").inputSchema(INPUT_SCHEMA).build(),
        Handler.async(async));
    registry.register(
        OperationSpec.builder("bench", "addTyped")
            .inputSchema(INPUT_SCHEMA)
            .outputSchema("{\"type\": \"integer\"}")
            .build(),
        Handler.async(async));
    registry.register(
        OperationSpec.builder("bench", "addBlocking").inputSchema(INPUT_SCHEMA).build(), blocking);
    if (registry.execute("bench.add", input).join().data().asInt() != 42) {
      throw new IllegalStateException("wrong result");
    }
  }

  @TearDown
  public void tearDown() {
    registry.close();
  }

  private static int compute(JsonNode in) {
    int a = in.get("a").asInt();
    int b = in.get("b").asInt();
    return "add".equals(in.get("op").asString()) ? a + b : a - b;
  }

  /** Baseline: the same handler, called directly. */
  @Benchmark
  public Object baselineDirectCall() {
    return async.handle(input, context).toCompletableFuture().join();
  }

  /** Part of the overhead: validating the input alone. */
  @Benchmark
  public Object validateInputOnly() {
    return inputSchema.validate(input);
  }

  /** The headline: validate input, run the non-blocking handler, wrap in a local envelope. */
  @Benchmark
  public ResponseEnvelope<JsonNode> executeAsync() {
    return registry.execute("bench.add", input).join();
  }

  /** Also casts and validates the output against an output schema. */
  @Benchmark
  public ResponseEnvelope<JsonNode> executeAsyncWithOutputSchema() {
    return registry.execute("bench.addTyped", input).join();
  }

  /** A blocking handler: the call hops to a handler thread (virtual on JDK 21+) and back. */
  @Benchmark
  public ResponseEnvelope<JsonNode> executeBlocking() {
    return registry.execute("bench.addBlocking", input).join();
  }
}
