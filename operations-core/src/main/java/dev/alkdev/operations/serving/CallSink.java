package dev.alkdev.operations.serving;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import tools.jackson.databind.JsonNode;

/**
 * Where the serving pipeline reports a served call, implemented by each adapter: the call
 * protocol's {@code CallHandler} publishes call events, an HTTP gateway writes JSON or SSE, an MCP
 * server JSON-RPC.
 *
 * <p>The pipeline promises: methods are called one at a time, in order; a call ends with exactly
 * one of {@link #onResult}, {@link #onComplete} or {@link #onError}, and nothing follows it; after
 * {@link ServedCall#cancel} has returned nothing is called at all. A call refused at once (unknown
 * operation, access, capacity) gets its {@link #onError} before {@link OperationServer#serve}
 * returns. Methods run on the thread that produced the signal and must not block; a method that
 * throws is logged and does not change the call's course.
 */
public interface CallSink {
  /**
   * The call's handle, before any other signal: an adapter that may need to cancel the call from
   * inside a signal (a reply it cannot deliver) keeps it. {@link OperationServer#serve} returns the
   * same handle.
   */
  default void onStart(ServedCall call) {}

  /** The result of a unary call (QUERY or MUTATION served to a unary caller). Ends the call. */
  void onResult(ResponseEnvelope<JsonNode> result);

  /**
   * One item of a stream: an item of a SUBSCRIPTION, or the only item of a unary operation served
   * to a stream consumer ({@link CallRequest#demand()} present), which {@link #onComplete} follows.
   */
  void onItem(ResponseEnvelope<JsonNode> item);

  /** The stream ended normally. Ends the call. */
  void onComplete();

  /**
   * The call failed or was refused: its {@link CallError} says why (OPERATION_NOT_FOUND,
   * UNAUTHENTICATED, ACCESS_DENIED, RESOURCE_EXHAUSTED, INVALID_INPUT, DEADLINE_EXCEEDED,
   * EXECUTION_ERROR, UNAVAILABLE when the server closes, ...). Ends the call.
   */
  void onError(CallError error);
}
