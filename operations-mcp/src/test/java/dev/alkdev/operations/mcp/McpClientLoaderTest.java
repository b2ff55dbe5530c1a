package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.ErrorCode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpClientLoaderTest {

  @Test
  void loadsInParallelAndReportsFailures() throws Exception {
    try (HttpTestServer server = new HttpTestServer()) {
      Map<String, McpClientConfig> servers = new LinkedHashMap<>();
      servers.put("one", McpClientConfig.streamableHttp(server.url()).build());
      servers.put("two", McpClientConfig.streamableHttp(server.url()).build());
      servers.put(
          "broken",
          McpClientConfig.stdio("sleep")
              .args("30")
              .initializeTimeout(Duration.ofSeconds(1))
              .build());
      try (McpClientLoader loader = McpClientLoader.load(servers)) {
        assertThat(loader.clients())
            .extracting(McpClientWrapper::name)
            .containsExactly("one", "two");
        assertThat(loader.get("one")).isPresent();
        assertThat(loader.get("broken")).isEmpty();
        assertThat(loader.failures().get("broken").code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
        assertThat(loader.operations())
            .extracting(op -> op.spec().id())
            .contains("one.echo", "two.echo");
        loader.closeAll();
        assertThat(loader.get("one").get().isOpen()).isFalse();
      }
    }
  }
}
