/**
 * operations for Java, Server-Sent Events: the {@code text/event-stream} parser, an {@code
 * EventSource} client on the JDK HttpClient, SSE events as response envelopes, and a writer for
 * servers. Packages named {@code internal} are not API.
 */
module dev.alkdev.operations.sse {
  requires transitive dev.alkdev.operations.core;
  requires transitive java.net.http;
  requires org.slf4j;

  exports dev.alkdev.operations.sse;
}
