package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.serving.OperationServer;
import java.time.Duration;

/** The general fixture registry served over this process's stdin/stdout, for stdio clients. */
public final class StdioServerMain {
  private StdioServerMain() {}

  public static void main(String[] args) throws Exception {
    OperationRegistry registry = Fixtures.general();
    OperationServer pipeline = OperationServer.create(registry);
    McpServer server = McpServer.builder(pipeline).build();
    McpStdioEndpoint stdio = server.serveStdio(System.in, System.out);
    while (!stdio.awaitClosed(Duration.ofHours(1))) {
      // Serves until the host closes stdin.
    }
    server.close();
    pipeline.close();
    registry.close();
  }
}
