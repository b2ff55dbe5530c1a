/**
 * operations for Java, Jetty serving support: what the project's Jetty servers (the HTTP gateway,
 * the MCP server, the WebSocket hub) share, written once. Not API: its one package is exported to
 * those modules only.
 */
module dev.alkdev.operations.jetty {
  requires transitive dev.alkdev.operations.core;
  requires transitive org.eclipse.jetty.server;
  requires org.eclipse.jetty.http;
  requires org.eclipse.jetty.io;
  requires org.eclipse.jetty.util;
  requires org.slf4j;

  exports dev.alkdev.operations.jetty.internal to
      dev.alkdev.operations.http,
      dev.alkdev.operations.mcpserver,
      dev.alkdev.operations.transport.websocket;
}
