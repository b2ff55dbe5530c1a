package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.ServedCall;
import java.util.concurrent.atomic.AtomicBoolean;
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

  UnaryExchange(Request request, Response response, Callback callback, boolean dataOnly) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.dataOnly = dataOnly;
  }

  /**
   * Before the call is served: a failure of the exchange (client gone, idle timeout) cancels it,
   * and with it the handler.
   */
  void watch() {
    // HTTP/1.1 gives no sign of a client that left while its call runs (nothing is read or
    // written until the answer), so a connection silent for the idle timeout ends the call: the
    // handler is cancelled rather than left running for nobody.
    request.addIdleTimeoutListener(timeout -> true);
    request.addFailureListener(
        failure -> {
          ServedCall c = call;
          if (c != null && c.cancel(CLIENT_GONE) && answered.compareAndSet(false, true)) {
            callback.failed(failure);
          }
        });
  }

  @Override
  public void onStart(ServedCall served) {
    this.call = served;
  }

  @Override
  public void onResult(ResponseEnvelope<JsonNode> result) {
    if (answered.compareAndSet(false, true)) {
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
    if (answered.compareAndSet(false, true)) {
      GatewayHandler.writeError(
          request,
          response,
          callback,
          CallError.of(ErrorCode.EXECUTION_ERROR, "The call ended without a result"));
    }
  }

  @Override
  public void onError(CallError error) {
    if (answered.compareAndSet(false, true)) {
      GatewayHandler.writeError(request, response, callback, error);
    }
  }
}
