package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.testing.NodePackages;
import dev.alkdev.operations.testing.PythonPackages;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/**
 * The official SDKs' clients against our server, each in its 2025 mode, its auto mode (which probes
 * and finds 2026-07-28) and pinned to 2026-07-28, a call with progress and one with structured
 * output in each: the TypeScript SDK's v2 client ({@code @modelcontextprotocol/client} 2.4.0, Node
 * 22), its v1 client ({@code @modelcontextprotocol/sdk} 1.32.2, 2025 only) and the Python SDK's
 * ({@code mcp} 2.3.0, in a virtual environment). Each runs a small script (test resources) that
 * prints one line of JSON.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SdkClientsTest {
  /** One SDK's client: how it is installed and how its script runs. */
  enum Sdk {
    TYPESCRIPT("/node/ts-sdk-client.mjs") {
      @Override
      Optional<String> install() throws InterruptedException {
        return NodePackages.ensure("@modelcontextprotocol/client@2.4.0");
      }

      @Override
      Path dir() {
        // Beside the packages, so Node resolves the import from the cache's node_modules.
        return NodePackages.dir();
      }

      @Override
      Path runtime() {
        return NodePackages.node();
      }
    },
    /** The TypeScript SDK's v1 client, which many hosts still ship: the 2025 revisions only. */
    TYPESCRIPT_V1("/node/ts-sdk-v1-client.mjs") {
      @Override
      Optional<String> install() throws InterruptedException {
        return NodePackages.ensure("@modelcontextprotocol/sdk@1.32.2");
      }

      @Override
      Path dir() {
        return NodePackages.dir();
      }

      @Override
      Path runtime() {
        return NodePackages.node();
      }
    },
    PYTHON("/python/sdk_client.py") {
      @Override
      Optional<String> install() throws InterruptedException {
        return PythonPackages.ensure("mcp==2.3.0");
      }

      @Override
      Path dir() {
        return PythonPackages.dir();
      }

      @Override
      Path runtime() {
        return PythonPackages.python();
      }
    };

    final String resource;

    Sdk(String resource) {
      this.resource = resource;
    }

    abstract Optional<String> install() throws InterruptedException;

    abstract Path dir();

    abstract Path runtime();
  }

  /** Each SDK installed once: empty when ready, else why not. */
  private static final Map<Sdk, Optional<String>> READY = new ConcurrentHashMap<>();

  private static Optional<String> ready(Sdk sdk) throws Exception {
    Optional<String> ready = READY.get(sdk);
    if (ready == null) {
      ready = sdk.install();
      if (ready.isEmpty()) {
        try (InputStream in = SdkClientsTest.class.getResourceAsStream(sdk.resource)) {
          Files.write(script(sdk), in.readAllBytes());
        }
      }
      READY.put(sdk, ready);
    }
    return ready;
  }

  private static Path script(Sdk sdk) {
    return sdk.dir().resolve(sdk.resource.substring(sdk.resource.lastIndexOf('/') + 1));
  }

  @ParameterizedTest
  @CsvSource({
    "TYPESCRIPT, legacy, 2025-11-25",
    "TYPESCRIPT, auto, 2026-07-28",
    "TYPESCRIPT, 2026, 2026-07-28",
    "TYPESCRIPT_V1, legacy, 2025-11-25",
    "PYTHON, 2025, 2025-11-25",
    "PYTHON, auto, 2026-07-28",
    "PYTHON, 2026, 2026-07-28"
  })
  void theClientListsAndCallsWithProgress(Sdk sdk, String mode, String version) throws Exception {
    Optional<String> notReady = ready(sdk);
    assumeTrue(notReady.isEmpty(), () -> sdk + " SDK not installed: " + notReady.orElse(""));
    try (OperationRegistry registry = Fixtures.general();
        OperationServer pipeline = OperationServer.create(registry);
        McpServer server = McpServer.builder(pipeline).build();
        McpHttpEndpoint http = server.startHttp(0)) {
      JsonNode out = run(sdk, http.uri().toString(), mode, "feed.numbers", "{\"count\":3}");
      assertThat(out.has("error")).as(out.toString()).isFalse();
      assertThat(out.get("protocolVersion").asString()).isEqualTo(version);
      assertThat(out.get("tools").toString()).contains("math.add").contains("feed.numbers");
      assertThat(out.at("/result/structuredContent/items").size()).isEqualTo(3);
      // Each item came as it was produced, before the result.
      assertThat(out.get("progress").size()).isEqualTo(3);
      assertThat(out.at("/progress/2/message").asString()).isEqualTo("{\"n\":3}");

      JsonNode sum = run(sdk, http.uri().toString(), mode, "math.add", "{\"a\":2,\"b\":3}");
      assertThat(sum.at("/result/structuredContent/sum").asDouble())
          .as(sum.toString())
          .isEqualTo(5.0);
    }
  }

  private static JsonNode run(Sdk sdk, String url, String mode, String tool, String args)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(sdk.runtime().toString());
    command.add(script(sdk).toString());
    command.addAll(List.of(url, mode, tool, args));
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the " + sdk + " client did not end within 60 s");
    }
    String line = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return Fixtures.json(line.strip());
  }
}
