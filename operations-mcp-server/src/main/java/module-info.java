/**
 * operations for Java, MCP server: a registry's operations as MCP tools over streamable HTTP (Jetty
 * 12) and stdio, through the one serving pipeline ({@link
 * dev.alkdev.operations.serving.OperationServer}). Packages named {@code internal} are not API.
 */
module dev.alkdev.operations.mcpserver {
  requires transitive dev.alkdev.operations.remote;
  requires dev.alkdev.operations.jetty;
  requires org.eclipse.jetty.server;
  requires org.eclipse.jetty.io;
  requires org.eclipse.jetty.http;
  requires org.eclipse.jetty.util;
  requires org.slf4j;
  // McpServerTelemetry only: OpenTelemetry's API is an optional dependency.
  requires static io.opentelemetry.api;
  requires static io.opentelemetry.context;

  exports dev.alkdev.operations.mcpserver;
}
