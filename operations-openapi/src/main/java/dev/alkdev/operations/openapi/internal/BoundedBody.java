package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;

/**
 * A body handler that collects at most {@code max} bytes: past that it cancels the stream and fails
 * with RESOURCE_EXHAUSTED, so a hostile server cannot make us buffer without bound. For a JDK
 * client the user gave; {@link JettyListener} does the same on Jetty's client.
 */
public final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
  private final long max;
  private final CompletableFuture<byte[]> result = new CompletableFuture<>();
  private final java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
  private Flow.Subscription subscription;
  private long received;

  private BoundedBody(long max) {
    this.max = max;
  }

  /** A handler whose bodies are capped at {@code max} bytes. */
  public static HttpResponse.BodyHandler<byte[]> handler(long max) {
    return info -> {
      // A declared Content-Length over the cap is refused before reading anything.
      long declared = info.headers().firstValueAsLong("content-length").orElse(-1);
      BoundedBody body = new BoundedBody(max);
      if (declared > max) {
        body.result.completeExceptionally(tooLarge(max));
      }
      return body;
    };
  }

  static CallError tooLarge(long max) {
    return CallError.of(
        ErrorCode.RESOURCE_EXHAUSTED,
        "HTTP response body is larger than the cap of " + max + " bytes");
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    if (result.isDone()) {
      subscription.cancel();
    } else {
      subscription.request(Long.MAX_VALUE);
    }
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (result.isDone()) {
      return;
    }
    for (ByteBuffer item : items) {
      received += item.remaining();
      if (received > max) {
        subscription.cancel();
        result.completeExceptionally(tooLarge(max));
        return;
      }
      byte[] bytes = new byte[item.remaining()];
      item.get(bytes);
      buffer.write(bytes, 0, bytes.length);
    }
  }

  @Override
  public void onError(Throwable throwable) {
    result.completeExceptionally(throwable);
  }

  @Override
  public void onComplete() {
    result.complete(buffer.toByteArray());
  }

  /** Header names in lower case, each with all its values in arrival order. */
  static Map<String, List<String>> lowerCaseNames(Map<String, List<String>> headers) {
    Map<String, List<String>> names = new LinkedHashMap<>();
    headers.forEach(
        (name, values) ->
            names
                .computeIfAbsent(name.toLowerCase(Locale.ROOT), key -> new ArrayList<>())
                .addAll(values));
    return names;
  }

  /**
   * Reads one response on Jetty's client into a {@link HttpOperation.Reply}, at most {@code max}
   * bytes of body: a declared length over the cap is refused at the headers, a body that grows past
   * it aborts the exchange there. Jetty calls these methods one at a time, so no locking.
   */
  static final class JettyListener implements Response.Listener {
    private final long max;
    private final CompletableFuture<HttpOperation.Reply> reply;
    private byte[] body = new byte[0];
    private int length;

    JettyListener(long max, CompletableFuture<HttpOperation.Reply> reply) {
      this.max = max;
      this.reply = reply;
    }

    @Override
    public void onHeaders(Response response) {
      long declared;
      try {
        declared = response.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
      } catch (NumberFormatException e) {
        declared = -1; // the parser refuses such a response before this; the body cap still holds
      }
      if (declared > max) {
        response.abort(tooLarge(max));
      }
    }

    @Override
    public void onContent(Response response, ByteBuffer content) {
      int take = content.remaining();
      if (length + (long) take > max) {
        content.position(content.limit());
        response.abort(tooLarge(max));
        return;
      }
      if (length + take > body.length) {
        int cap = (int) Math.min(max, Integer.MAX_VALUE - 8);
        body = Arrays.copyOf(body, Math.max(length + take, Math.min(body.length * 2, cap)));
      }
      content.get(body, length, take);
      length += take;
    }

    @Override
    public void onComplete(Result result) {
      if (result.isFailed()) {
        reply.completeExceptionally(result.getFailure());
        return;
      }
      Response response = result.getResponse();
      Map<String, List<String>> headers = new LinkedHashMap<>();
      for (HttpField field : response.getHeaders()) {
        headers
            .computeIfAbsent(field.getLowerCaseName(), key -> new ArrayList<>())
            .add(field.getValue());
      }
      String contentType = response.getHeaders().get(HttpHeader.CONTENT_TYPE);
      reply.complete(
          new HttpOperation.Reply(
              response.getStatus(),
              headers,
              contentType == null ? "" : contentType,
              length == body.length ? body : Arrays.copyOf(body, length)));
    }
  }
}
