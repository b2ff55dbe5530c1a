package dev.alkdev.operations.jetty.internal;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * What an answer does about a request body it leaves unread (a refusal, an error met while reading
 * the body): the rule the gateway and the MCP endpoint share.
 *
 * <p>What has arrived is discarded. If more is still to come on HTTP/1, the answer says {@code
 * Connection: close}: Jetty closes such a connection once the exchange ends, since the unread rest
 * would be taken for the next request, and a client not told so keeps the connection in its pool
 * and gets no answer to its next request on it (a POST is not retried).
 *
 * <p>Closing a socket with bytes unread makes the kernel send a reset instead of an orderly close,
 * and a reset can make the client's kernel discard the answer before the client has read it: a
 * client still sending its body (the JDK client sends a body after its headers, chunked when no
 * length is known) then sees the connection fail with no status at all. So after the answer is
 * written the rest of the body is read and discarded, up to the server's own body limit or 1 MiB,
 * whichever is more (reading and dropping bytes costs the server little: they land in network
 * buffers it reuses), and only then does the exchange end and the connection close. A body declared
 * longer than that, or one the client holds back until told to go on ({@code Expect:
 * 100-continue}), is not waited for. Waiting for the rest is bounded by the server's idle timeout
 * and its least body rate ({@link ConnectionGuard}).
 */
public final class UnreadBody {
  /** The least a refusal reads of a body it leaves unread, whatever the server's body limit. */
  static final long MIN_DRAIN = 1 << 20;

  private UnreadBody() {}

  /**
   * Prepares {@code response} for an answer that may leave the body of {@code request} unread, and
   * returns the callback to write that answer with: {@code callback} itself when the body is
   * already read to its end, otherwise one that discards the rest (up to {@code bodyLimit} or
   * {@link #MIN_DRAIN} bytes, whichever is more) before it completes {@code callback}.
   */
  public static Callback settle(
      Request request, Response response, Callback callback, long bodyLimit) {
    Drain drain = new Drain(request, Math.max(bodyLimit, MIN_DRAIN), callback);
    Read read = drain.readAvailable();
    if (read == Read.END) {
      return callback;
    }
    HttpVersion version = request.getConnectionMetaData().getHttpVersion();
    if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
      return callback; // HTTP/2 and 3 end the one stream, not the connection
    }
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
    long declared = request.getLength();
    long unread = declared < 0 ? -1 : declared - Request.getContentBytesRead(request);
    if (read == Read.GIVE_UP
        || unread > drain.left
        || request.getHeaders().contains(HttpHeader.EXPECT, HttpHeaderValue.CONTINUE.asString())) {
      return callback;
    }
    return Callback.from(Callback.InvocationType.NON_BLOCKING, drain, callback::failed);
  }

  /** What reading what has arrived found. */
  private enum Read {
    /** The body's end: nothing is left unread. */
    END,
    /** More is to come, within the bound. */
    MORE,
    /** The body failed, or more than the bound has been read. */
    GIVE_UP
  }

  /**
   * Reads a body's rest and drops it, at most a bound in all; once the answer is written, it ends
   * the exchange when the body ends or the bound is passed.
   */
  private static final class Drain implements Runnable {
    private final Request request;
    private final Callback done;
    private long left;

    Drain(Request request, long limit, Callback done) {
      this.request = request;
      this.left = limit;
      this.done = done;
    }

    /**
     * Reads and drops what has arrived, without waiting. (Not {@link Request#consumeAvailable}:
     * when the end has not arrived, that fails the body, and nothing more of it could be read.)
     */
    Read readAvailable() {
      while (true) {
        Content.Chunk chunk = request.read();
        if (chunk == null) {
          return Read.MORE;
        }
        left -= chunk.remaining();
        chunk.release();
        if (Content.Chunk.isFailure(chunk) || left < 0) {
          return Read.GIVE_UP;
        }
        if (chunk.isLast()) {
          return Read.END;
        }
      }
    }

    @Override
    public void run() {
      if (readAvailable() == Read.MORE) {
        request.demand(this);
      } else {
        // The answer has been written: however the body ends (its end, a failure, too much of
        // it), the exchange has succeeded, and the connection closes.
        done.succeeded();
      }
    }
  }
}
