package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.ServedCall;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import tools.jackson.databind.JsonNode;

/**
 * A unary call's sink: the result as one JSON response (the envelope, or the data alone), or the
 * error. A client that goes away cancels the call, and with it the handler.
 */
final class UnaryExchange implements CallSink {
  static final CallError CLIENT_GONE =
      CallError.of(ErrorCode.CANCELLED, "The HTTP client went away");

  private final Request request;
  private final Response response;
  private final Callback callback;
  private final boolean dataOnly;
  private final AtomicBoolean answered = new AtomicBoolean();
  private volatile ServedCall call;
  private volatile ScheduledFuture<?> probe;

  UnaryExchange(Request request, Response response, Callback callback, boolean dataOnly) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.dataOnly = dataOnly;
  }

  /**
   * Before the call is served: a client that goes away cancels the call, and with it the handler.
   * HTTP/1.1 shows a departure only when something is read or written, and nothing is until the
   * answer, so two things watch: the connection's idle timeout (a connection silent that long fails
   * the exchange), and a probe every {@code probeEvery} that finds a connection Jetty has already
   * seen closed.
   */
  void watch(ScheduledExecutorService timer, Duration probeEvery) {
    request.addIdleTimeoutListener(timeout -> true);
    request.addFailureListener(this::gone);
    EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    try {
      probe =
          timer.scheduleWithFixedDelay(
              () -> {
                if (!endPoint.isOpen()) {
                  gone(CLIENT_GONE);
                }
              },
              probeEvery.toMillis(),
              probeEvery.toMillis(),
              TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // the gateway is stopping; the idle timeout still watches
    }
  }

  private void gone(Throwable failure) {
    ServedCall c = call;
    if (c != null && c.cancel(CLIENT_GONE) && answer()) {
      callback.failed(failure);
    }
  }

  /** Claims the one answer; the probe stops with it. */
  private boolean answer() {
    if (!answered.compareAndSet(false, true)) {
      return false;
    }
    ScheduledFuture<?> p = probe;
    if (p != null) {
      p.cancel(false);
    }
    return true;
  }

  @Override
  public void onStart(ServedCall served) {
    this.call = served;
  }

  @Override
  public void onResult(ResponseEnvelope<JsonNode> result) {
    if (answer()) {
      JsonNode body = dataOnly ? result.data() : result.toJson();
      if (dataOnly) {
        response.getHeaders().put("Preference-Applied", "return=minimal");
      }
      GatewayHandler.writeJson(response, callback, 200, body);
    }
  }

  @Override
  public void onItem(ResponseEnvelope<JsonNode> item) {
    // A unary caller gets onResult; the pipeline never streams to it.
    onResult(item);
  }

  @Override
  public void onComplete() {
    if (answer()) {
      GatewayHandler.writeError(
          request,
          response,
          callback,
          CallError.of(ErrorCode.EXECUTION_ERROR, "The call ended without a result"),
          GatewayHandler.BODY_READ);
    }
  }

  @Override
  public void onError(CallError error) {
    if (answer()) {
      GatewayHandler.writeError(request, response, callback, error, GatewayHandler.BODY_READ);
    }
  }
}
