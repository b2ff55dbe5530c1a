/**
 * operations for Java, HTTP gateway: a registry's operations served over HTTP on Jetty 12 (JSON
 * calls, Server-Sent-Events streams), a generated OpenAPI 3.1 document, health endpoints and a web
 * console. Packages named {@code internal} are not API.
 */
module dev.alkdev.operations.http {
  requires transitive dev.alkdev.operations.core;
  requires dev.alkdev.operations.sse;
  requires dev.alkdev.operations.jetty;
  requires org.eclipse.jetty.server;
  requires org.eclipse.jetty.http;
  requires org.eclipse.jetty.io;
  requires org.eclipse.jetty.util;
  requires org.slf4j;

  exports dev.alkdev.operations.http;
}
