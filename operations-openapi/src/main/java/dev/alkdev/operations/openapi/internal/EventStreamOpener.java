package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.OperationContext;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.util.concurrent.Flow;

/**
 * The seam between SUBSCRIPTION operations ({@code text/event-stream} responses) and the SSE
 * client: the handler builds the request exactly as for other operations and hands it here. {@code
 * FromOpenApi} connects it to {@code dev.alkdev.operations.sse.SseEnvelopes}.
 */
@FunctionalInterface
public interface EventStreamOpener {

  /**
   * Opens the stream.
   *
   * @param client the client, redirects never followed
   * @param request the request, {@code Accept: text/event-stream} set
   * @param context the call's context (deadline, cancellation)
   * @param maxEventBytes the largest event accepted
   * @param reconnectOnClose whether a response the server ends is followed by a new request with
   *     {@code Last-Event-ID}, rather than ending the stream
   * @return the events, each the item the subscription emits
   */
  Flow.Publisher<?> open(
      HttpClient client,
      HttpRequest request,
      OperationContext context,
      long maxEventBytes,
      boolean reconnectOnClose);
}
