/**
 * operations for Java, OpenAPI adapter: operations from OpenAPI documents over Jetty's HTTP client
 * (decision D70), and Server-Sent-Events streams (read with {@code dev.alkdev.operations.sse} on
 * the JDK HttpClient) as subscriptions. {@code java.net.http} stays transitive: {@code
 * HttpServiceConfig.httpClient} and {@code OpenApiOptions.fetchClient} take a JDK client. Packages
 * named {@code internal} are not API.
 */
module dev.alkdev.operations.openapi {
  requires transitive dev.alkdev.operations.core;
  requires dev.alkdev.operations.sse;
  requires transitive java.net.http;
  requires org.eclipse.jetty.client;
  requires tools.jackson.databind;
  requires tools.jackson.dataformat.yaml;
  requires org.slf4j;

  exports dev.alkdev.operations.openapi;

  provides dev.alkdev.operations.source.SourceFactory with
      dev.alkdev.operations.openapi.internal.OpenApiSourceFactory;
}
