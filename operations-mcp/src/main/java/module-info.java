/**
 * operations for Java, MCP adapter: the tools of MCP servers (stdio or streamable HTTP) as
 * operations. Packages named {@code internal} are not part of the API.
 *
 * <p>The MCP Java SDK jars carry {@code Automatic-Module-Name}s, so they are required by name.
 */
module dev.alkdev.operations.mcp {
  requires transitive dev.alkdev.operations.core;
  requires io.modelcontextprotocol.sdk.mcp.core;
  requires io.modelcontextprotocol.sdk.mcp.json.jackson3;
  requires reactor.core;
  requires org.reactivestreams;
  requires dev.alkdev.operations.sse;
  requires org.eclipse.jetty.client;
  requires org.slf4j;
  requires java.net.http;
  requires jdk.httpserver;
  // Nimbus OAuth 2.0 SDK: PKCE, metadata, authorization and token requests. Its jar names no
  // module, so its name comes from the file name.
  requires oauth2.oidc.sdk;
  // McpClientTelemetry only: OpenTelemetry's API is an optional dependency.
  requires static io.opentelemetry.api;
  requires static io.opentelemetry.context;

  exports dev.alkdev.operations.mcp;

  provides dev.alkdev.operations.source.SourceFactory with
      dev.alkdev.operations.mcp.internal.McpSourceFactory;
}
