package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A body handler that collects at most {@code max} bytes: past that it cancels the stream and fails
 * with RESOURCE_EXHAUSTED, so a hostile server cannot make us buffer without bound.
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
}
