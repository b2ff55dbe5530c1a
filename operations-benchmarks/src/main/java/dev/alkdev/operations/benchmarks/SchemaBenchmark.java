package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 2's benchmark: validate and cast of a ~1 KB order against its schema, with a Jackson parse
 * of the same bytes as the baseline in the same run. Target: validate + cast ≤ 3× parse, with the
 * default (hostile-input-safe) limits.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SchemaBenchmark {
  private JsonMapper mapper;
  private byte[] bytes;
  private JsonNode order;
  private Schema schema;

  @Setup
  public void setUp() {
    mapper = JsonMapper.builder().build();
    bytes = Resources.bytes("order.json");
    order = mapper.readTree(bytes);
    schema =
        Schema.fromJson(new String(Resources.bytes("order.schema.json"), StandardCharsets.UTF_8));
    List<SchemaError> errors = schema.validate(order);
    if (!errors.isEmpty()) {
      throw new IllegalStateException("benchmark input does not validate: " + errors);
    }
    if (!schema.cast(order).equals(order)) {
      throw new IllegalStateException("benchmark input is changed by cast: " + schema.cast(order));
    }
  }

  /** Baseline: Jackson parses the same bytes into a tree. */
  @Benchmark
  public JsonNode baselineParse() {
    return mapper.readTree(bytes);
  }

  @Benchmark
  public List<SchemaError> validate() {
    return schema.validate(order);
  }

  @Benchmark
  public JsonNode cast() {
    return schema.cast(order);
  }

  /** What the result pipeline does to every output: cast, then validate the cast value. */
  @Benchmark
  public List<SchemaError> castThenValidate() {
    return schema.validate(schema.cast(order));
  }
}
