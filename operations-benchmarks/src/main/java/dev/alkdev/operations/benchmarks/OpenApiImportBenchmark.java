package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.openapi.FromOpenApi;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.openapi.OpenApiImport;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Issue 5's benchmark: importing a large real OpenAPI document (GitHub's REST description, fetched
 * by scripts/fetch-github-openapi.sh and named by {@code -Dopenapi.doc=PATH}; the Petstore document
 * when absent) into operations. Baseline in the same run: Jackson parsing the same bytes into a
 * tree. Also measured: swagger-parser's {@code readContents} with {@code resolve}, the reader we
 * chose not to depend on.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class OpenApiImportBenchmark {
  private byte[] bytes;
  private String text;
  private ObjectMapper mapper;
  private HttpServiceConfig config;

  @Setup
  public void setUp() {
    String path = System.getProperty("openapi.doc", "");
    if (path.isEmpty()) {
      bytes = Resources.bytes("petstore-3.0.yaml");
    } else {
      try {
        bytes = Files.readAllBytes(Path.of(path));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    text = new String(bytes, StandardCharsets.UTF_8);
    mapper =
        text.stripLeading().startsWith("{")
            ? JsonMapper.builder().build()
            : YAMLMapper.builder().build();
    config = HttpServiceConfig.builder("bench").baseUrl("http://127.0.0.1:1").build();
    OpenApiImport result = importOperations();
    if (result.operations().isEmpty()) {
      throw new IllegalStateException("benchmark document has no operations");
    }
    System.out.println(
        "document: "
            + (path.isEmpty() ? "petstore-3.0.yaml" : path)
            + ", "
            + bytes.length
            + " bytes, "
            + result.operations().size()
            + " operations");
  }

  /** Baseline: Jackson parses the same bytes into a tree. */
  @Benchmark
  public JsonNode baselineParse() {
    return mapper.readTree(bytes);
  }

  /** Our reader: parse, resolve refs, build and compile every operation's schemas. */
  @Benchmark
  public OpenApiImport importOperations() {
    return FromOpenApi.fromString(text, config);
  }

  /**
   * Our reader, then every operation's schemas compiled (they compile lazily, on first use): the
   * cost when every operation is used.
   */
  @Benchmark
  public int importAndCompileAll() {
    int compiled = 0;
    for (var operation : importOperations().operations()) {
      compiled += operation.spec().inputSchema().isUnknown() ? 0 : 1;
      compiled += operation.spec().outputSchema().isUnknown() ? 0 : 1;
    }
    return compiled;
  }

  /** swagger-parser 2.1.x, refs resolved (the alternative we did not take). */
  @Benchmark
  public SwaggerParseResult swaggerParser() {
    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    return new OpenAPIV3Parser().readContents(text, null, options);
  }
}
