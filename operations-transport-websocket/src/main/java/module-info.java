/**
 * operations for Java, WebSocket hub and spokes: a hub (a Jetty 12 WebSocket server) relays the
 * call protocol between its own registry and its spokes; a spoke is a {@link
 * dev.alkdev.operations.pubsub.PubSub} over a WebSocket connection to a hub. Packages named {@code
 * internal} are not API.
 */
module dev.alkdev.operations.transport.websocket {
  requires transitive dev.alkdev.operations.remote;
  requires dev.alkdev.operations.jetty;
  requires org.eclipse.jetty.websocket.api;
  requires org.eclipse.jetty.websocket.server;
  requires org.eclipse.jetty.websocket.client;
  requires org.eclipse.jetty.server;
  requires org.eclipse.jetty.client;
  requires org.eclipse.jetty.http;
  requires org.eclipse.jetty.io;
  requires org.eclipse.jetty.util;
  requires org.slf4j;
  requires tools.jackson.core;
  requires tools.jackson.databind;

  exports dev.alkdev.operations.transport.websocket;
  // Not API: Jetty calls the connection listener reflectively.
  exports dev.alkdev.operations.transport.websocket.internal to
      org.eclipse.jetty.websocket.common;

  provides dev.alkdev.operations.pubsub.PubSubFactory with
      dev.alkdev.operations.transport.websocket.internal.WebSocketPubSubFactory;
}
