package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.cli.internal.OneOffFlags;
import dev.alkdev.operations.cli.internal.SourceSet;
import dev.alkdev.operations.typed.TypedClient;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ops generate java} on an MCP server's tools: the reference server
 * {@code @modelcontextprotocol/server-everything}, pinned as in the MCP adapter's tests (npx; its
 * npm cache warmed by scripts/install-mcp-reference.sh). The sources compile, the interface fits
 * the tools, and a call through it reaches the server.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class GenerateJavaMcpTest {
  static final String PACKAGE = "@modelcontextprotocol/server-everything@2026.8.31";

  @TempDir Path dir;

  @Test
  void theReferenceServersToolsAsAnInterface() throws Exception {
    assumeTrue(onPath("npx"), "npx is not on the PATH (install Node.js)");
    String server = "everything=npx -y " + PACKAGE;
    Path sources = dir.resolve("src");
    CliRun run =
        CliRun.run(
            "--no-demo",
            "--load-timeout",
            "120s",
            "--mcp-stdio",
            server,
            "generate",
            "java",
            "--out",
            sources.toString(),
            "--package",
            "com.example.everything");
    assertThat(run.code()).as(run.err()).isZero();
    Path classes = dir.resolve("classes");
    assertThat(Javac.compile(sources, classes)).isEmpty();

    OpsConfig config =
        OneOffFlags.apply(OpsConfig.empty(), List.of(), List.of(), List.of(server), List.of());
    try (URLClassLoader loader = Javac.loader(classes);
        SourceSet set = SourceSet.create(false, config, Map.of(), Duration.ofSeconds(120));
        OperationRegistry registry = OperationRegistry.create()) {
      set.load(registry, Duration.ofSeconds(120), SourceSet.Progress.NONE);
      Class<?> everything = loader.loadClass("com.example.everything.Everything");
      assertThat(TypedClient.builder(everything, registry).check()).isEmpty();
      Object client = TypedClient.create(everything, registry);
      Method echo = method(everything, "echo");
      Object input =
          JsonMapper.builder()
              .build()
              .readValue("{\"message\": \"typed hi\"}", echo.getParameterTypes()[0]);
      Object reply = echo.invoke(client, input);
      assertThat(JsonMapper.builder().build().writeValueAsString(reply)).contains("typed hi");
    }
  }

  private static Method method(Class<?> type, String name) {
    for (Method method : type.getMethods()) {
      if (method.getName().equals(name) && method.getParameterCount() == 1) {
        return method;
      }
    }
    throw new AssertionError("no method " + name + "(input) on " + type);
  }

  static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String entry : path.split(File.pathSeparator)) {
      if (new File(entry, program).canExecute()) {
        return true;
      }
    }
    return false;
  }
}
