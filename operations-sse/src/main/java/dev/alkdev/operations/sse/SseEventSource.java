package dev.alkdev.operations.sse;

import dev.alkdev.operations.sse.internal.SseStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.util.concurrent.Flow;

/**
 * The client side of a Server-Sent-Events stream (the WHATWG {@code EventSource}) on the JDK {@link
 * HttpClient}, as a {@link Flow.Publisher} of events.
 *
 * <p>Each subscriber gets its own connection. The request is sent as given, with {@code Accept:
 * text/event-stream}, {@code Cache-Control: no-cache}, the response timeout from {@link
 * SseOptions}, and on reconnection {@code Last-Event-ID}. The body is read only as fast as the
 * subscriber requests events.
 *
 * <p>What ends the publisher:
 *
 * <ul>
 *   <li>HTTP 204: completes, no reconnection (the server's way to say stop).
 *   <li>Another status than 200, or a content type other than {@code text/event-stream}: fails with
 *       a {@link dev.alkdev.operations.CallError} whose details hold the status, content type and
 *       the first {@link SseOptions#maxErrorBodyBytes()} of the body.
 *   <li>The stream ends or drops after a good start: reconnects after the stream's {@code retry}
 *       (or {@link SseOptions#defaultRetry()}, capped by {@link SseOptions#maxRetry()}); after
 *       {@link SseOptions#maxReconnects()} reconnections in a row without an event it fails with
 *       {@code UNAVAILABLE}. Without reconnection it completes (or fails, if the stream dropped).
 *   <li>A parser limit exceeded: fails with {@code RESOURCE_EXHAUSTED}.
 *   <li>Cancel: closes the HTTP stream and stops reconnecting.
 * </ul>
 *
 * <p>Events that arrived before a terminal signal are delivered first.
 */
public final class SseEventSource {
  private SseEventSource() {}

  /** A publisher of the events of the stream {@code request} opens. */
  public static Flow.Publisher<SseEvent> open(
      HttpClient client, HttpRequest request, SseOptions options) {
    return SseStream.publisher(client, request, options, response -> event -> event);
  }

  /** {@link #open(HttpClient, HttpRequest, SseOptions)} with {@link SseOptions#defaults()}. */
  public static Flow.Publisher<SseEvent> open(HttpClient client, HttpRequest request) {
    return open(client, request, SseOptions.defaults());
  }
}
