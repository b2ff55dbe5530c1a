package dev.alkdev.operations.sse;

import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.envelope.SseEventMeta;
import dev.alkdev.operations.sse.internal.SseStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.ResponseInfo;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Flow;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Server-Sent Events as response envelopes: one envelope per event, source {@code http}, the
 * stream's status and headers in the meta and the event's type, id and retry in {@link
 * HttpResponseMeta#event()} (decision D-SSE).
 *
 * <p>The envelope's data is the event's data parsed as JSON (a {@link JsonNode}) when the whole
 * data is one JSON value, else the data as a {@link String}. So {@code data: {"n":1}} gives an
 * object node, {@code data: 42} a number node, {@code data: hello} the string {@code "hello"}, and
 * an empty data the empty string.
 */
public final class SseEnvelopes {
  private SseEnvelopes() {}

  /**
   * The envelopes of the stream {@code request} opens, for an operation handler: the stream stops
   * (the subscriber gets the reason as error) when the call is cancelled or its deadline passes.
   */
  public static Flow.Publisher<ResponseEnvelope<Object>> open(
      HttpClient client, HttpRequest request, SseOptions options, OperationContext context) {
    Objects.requireNonNull(context, "context");
    return SseStream.publisher(
        client, request, options, Optional.of(context), SseEnvelopes::envelopes);
  }

  /** The envelopes of the stream {@code request} opens. */
  public static Flow.Publisher<ResponseEnvelope<Object>> open(
      HttpClient client, HttpRequest request, SseOptions options) {
    return SseStream.publisher(client, request, options, SseEnvelopes::envelopes);
  }

  /** The envelope of {@code event}, received on a response with meta {@code response}. */
  public static ResponseEnvelope<Object> toEnvelope(SseEvent event, HttpResponseMeta response) {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(response, "response");
    return Envelopes.httpEnvelope(
        data(event.data()),
        response.withEvent(new SseEventMeta(event.type(), event.id(), event.retry())));
  }

  /** The event's data as JSON when it is one JSON value, else as the string itself. */
  public static Object data(String data) {
    if (data.isEmpty()) {
      return data;
    }
    try {
      JsonNode node = JsonMapper.shared().readTree(data);
      return node == null || node.isMissingNode() ? data : node;
    } catch (JacksonException notJson) {
      return data;
    }
  }

  // Called once per connection: the headers are copied once, not once per event.
  private static Function<SseEvent, ResponseEnvelope<Object>> envelopes(ResponseInfo response) {
    HttpResponseMeta meta =
        HttpResponseMeta.ofHeaderValues(
            response.statusCode(),
            response.headers().map(),
            response.headers().firstValue("content-type").orElse(""));
    return event -> toEnvelope(event, meta);
  }
}
