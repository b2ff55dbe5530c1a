package dev.alkdev.operations.jetty.internal;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * Reads a request body whole, up to a size. Unlike Jetty's {@code Content.Source.asByteArrayAsync},
 * a body over the size does not fail the request's content: the rest can still be read and dropped
 * ({@link UnreadBody}), so the refusal reaches a client that is still sending.
 */
public final class BoundedBody {
  private BoundedBody() {}

  /**
   * The body of {@code request}; completes with {@link TooLarge} as soon as more than {@code max}
   * bytes have arrived, or with the failure met while reading.
   */
  public static CompletableFuture<byte[]> read(Request request, int max) {
    long declared = request.getLength();
    Reader reader = new Reader(request, max, declared >= 0 && declared <= max ? (int) declared : 0);
    reader.run();
    return reader.result;
  }

  /** The body is over the size it was read with. */
  public static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLarge(int max) {
      super("The body is over " + max + " bytes", null, false, false);
    }
  }

  private static final class Reader implements Runnable {
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final Request request;
    private final int max;
    private byte[] bytes;
    private int size;

    Reader(Request request, int max, int expected) {
      this.request = request;
      this.max = max;
      this.bytes = new byte[Math.max(expected, 256)];
    }

    @Override
    public void run() {
      try {
        while (true) {
          Content.Chunk chunk = request.read();
          if (chunk == null) {
            request.demand(this);
            return;
          }
          if (Content.Chunk.isFailure(chunk)) {
            result.completeExceptionally(chunk.getFailure());
            return;
          }
          int length = chunk.remaining();
          if (length > max - size) {
            chunk.release();
            result.completeExceptionally(new TooLarge(max));
            return;
          }
          if (size + length > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.min(max, Math.max(size + length, bytes.length * 2)));
          }
          chunk.get(bytes, size, length);
          size += length;
          boolean last = chunk.isLast();
          chunk.release();
          if (last) {
            result.complete(size == bytes.length ? bytes : Arrays.copyOf(bytes, size));
            return;
          }
        }
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
      }
    }
  }
}
