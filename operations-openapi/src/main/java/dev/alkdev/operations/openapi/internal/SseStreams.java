package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.sse.SseEnvelopes;
import dev.alkdev.operations.sse.SseLimits;
import dev.alkdev.operations.sse.SseOptions;

/** How imports open SUBSCRIPTION operations' streams. */
public final class SseStreams {
  /**
   * SUBSCRIPTION operations read their {@code text/event-stream} responses with the SSE client: one
   * envelope per event; after a drop, and after the server ends the response when the operation
   * says so, reconnecting with {@code Last-Event-ID}; stopped by the call's cancellation or
   * deadline. An event may be as large as the config's response-body cap.
   */
  public static final EventStreamOpener OPENER =
      (client, request, context, maxEventBytes, reconnectOnClose) -> {
        int cap = (int) Math.min(Integer.MAX_VALUE, Math.max(1, maxEventBytes));
        SseLimits defaults = SseLimits.defaults();
        SseLimits limits = new SseLimits(Math.min(defaults.maxLineBytes(), cap), cap);
        SseOptions options =
            SseOptions.defaults()
                .withLimits(limits)
                .withReconnect(
                    reconnectOnClose ? SseOptions.Reconnect.ALWAYS : SseOptions.Reconnect.ON_DROP);
        return SseEnvelopes.open(client, request, options, context);
      };

  private SseStreams() {}
}
