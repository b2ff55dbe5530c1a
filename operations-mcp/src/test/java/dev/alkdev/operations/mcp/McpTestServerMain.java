package dev.alkdev.operations.mcp;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;

/** The test tools served over stdio by the SDK; started as a subprocess by the stdio tests. */
public final class McpTestServerMain {
  private McpTestServerMain() {}

  public static void main(String[] args) throws Exception {
    McpSyncServer server =
        McpServer.sync(new StdioServerTransportProvider(McpJsonDefaults.getMapper()))
            .serverInfo("stdio-test-server", "1.0.0")
            .strictToolNameValidation(false)
            .capabilities(TestTools.capabilities())
            .tools(TestTools.all())
            .build();
    System.err.println("stdio test server ready");
    Thread.currentThread().join();
  }
}
