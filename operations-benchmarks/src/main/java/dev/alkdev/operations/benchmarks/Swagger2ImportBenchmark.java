package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.openapi.FromOpenApi;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.openapi.OpenApiImport;
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
 * Issue 20: what reading Swagger 2.0 into the 3.0 shape (D50) costs. The same generated API (400
 * paths, a GET with query parameters and an array in {@code collectionFormat}, a POST with a body
 * referencing one of 100 definitions) written once as Swagger 2.0 and once as OpenAPI 3.0; the
 * baseline is importing the 3.0 text.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class Swagger2ImportBenchmark {
  static final int PATHS = 400;
  static final int DEFINITIONS = 100;

  private String swagger2;
  private String openapi3;
  private HttpServiceConfig config;

  @Setup
  public void setUp() {
    StringBuilder v2 =
        new StringBuilder("{\"swagger\":\"2.0\",\"info\":{\"title\":\"b\",\"version\":\"1\"},");
    v2.append("\"host\":\"127.0.0.1:1\",\"basePath\":\"/v1\",\"schemes\":[\"http\"],\"paths\":{");
    StringBuilder v3 =
        new StringBuilder("{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"b\",\"version\":\"1\"},");
    v3.append("\"servers\":[{\"url\":\"http://127.0.0.1:1/v1\"}],\"paths\":{");
    for (int i = 0; i < PATHS; i++) {
      int def = i % DEFINITIONS;
      String sep = i == 0 ? "" : ",";
      v2.append(sep)
          .append("\"/things")
          .append(i)
          .append("/{id}\":{\"get\":{\"operationId\":\"get")
          .append(i)
          .append(
              "\",\"parameters\":[{\"name\":\"id\",\"in\":\"path\",\"required\":true,\"type\":\"string\"},")
          .append("{\"name\":\"limit\",\"in\":\"query\",\"type\":\"integer\",\"maximum\":100},")
          .append(
              "{\"name\":\"tags\",\"in\":\"query\",\"type\":\"array\",\"items\":{\"type\":\"string\"},\"collectionFormat\":\"pipes\"}],")
          .append(
              "\"responses\":{\"200\":{\"description\":\"ok\",\"schema\":{\"$ref\":\"#/definitions/Thing")
          .append(def)
          .append("\"}}}},\"post\":{\"operationId\":\"post")
          .append(i)
          .append(
              "\",\"parameters\":[{\"name\":\"id\",\"in\":\"path\",\"required\":true,\"type\":\"string\"},")
          .append(
              "{\"name\":\"body\",\"in\":\"body\",\"required\":true,\"schema\":{\"$ref\":\"#/definitions/Thing")
          .append(def)
          .append("\"}}],\"responses\":{\"201\":{\"description\":\"created\"}}}}");
      v3.append(sep)
          .append("\"/things")
          .append(i)
          .append("/{id}\":{\"get\":{\"operationId\":\"get")
          .append(i)
          .append(
              "\",\"parameters\":[{\"name\":\"id\",\"in\":\"path\",\"required\":true,\"schema\":{\"type\":\"string\"}},")
          .append(
              "{\"name\":\"limit\",\"in\":\"query\",\"schema\":{\"type\":\"integer\",\"maximum\":100}},")
          .append(
              "{\"name\":\"tags\",\"in\":\"query\",\"style\":\"pipeDelimited\",\"explode\":false,\"schema\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}],")
          .append(
              "\"responses\":{\"200\":{\"description\":\"ok\",\"content\":{\"application/json\":{\"schema\":{\"$ref\":\"#/components/schemas/Thing")
          .append(def)
          .append("\"}}}}}},\"post\":{\"operationId\":\"post")
          .append(i)
          .append(
              "\",\"parameters\":[{\"name\":\"id\",\"in\":\"path\",\"required\":true,\"schema\":{\"type\":\"string\"}}],")
          .append(
              "\"requestBody\":{\"required\":true,\"content\":{\"application/json\":{\"schema\":{\"$ref\":\"#/components/schemas/Thing")
          .append(def)
          .append("\"}}}},\"responses\":{\"201\":{\"description\":\"created\"}}}}");
    }
    v2.append("},\"definitions\":{");
    v3.append("},\"components\":{\"schemas\":{");
    for (int d = 0; d < DEFINITIONS; d++) {
      String schema =
          "{\"type\":\"object\",\"required\":[\"name\"],\"properties\":{\"name\":{\"type\":\"string\"},"
              + "\"size\":{\"type\":\"integer\",\"minimum\":0},\"labels\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}";
      String sep = d == 0 ? "" : ",";
      v2.append(sep).append("\"Thing").append(d).append("\":").append(schema);
      v3.append(sep).append("\"Thing").append(d).append("\":").append(schema);
    }
    v2.append("}}");
    v3.append("}}}");
    swagger2 = v2.toString();
    openapi3 = v3.toString();
    config = HttpServiceConfig.builder("bench").build();
    OpenApiImport a = baselineOpenApi3Import();
    OpenApiImport b = swagger2Import();
    if (a.operations().size() != 2 * PATHS
        || b.operations().size() != 2 * PATHS
        || !b.warnings().isEmpty()) {
      throw new IllegalStateException("generated documents did not import alike: " + b.warnings());
    }
  }

  @Benchmark
  public OpenApiImport baselineOpenApi3Import() {
    return FromOpenApi.fromString(openapi3, config);
  }

  @Benchmark
  public OpenApiImport swagger2Import() {
    return FromOpenApi.fromString(swagger2, config);
  }
}
