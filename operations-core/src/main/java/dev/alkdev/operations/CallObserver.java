package dev.alkdev.operations;

import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * What an {@link OperationInterceptor} hears about a call it proceeded with: every item of a
 * stream, then exactly one end, whatever ends the call (success, failure, refusal by a later
 * interceptor or by the serving pipeline, cancellation, deadline). Methods run on whichever thread
 * ends the call, one at a time; they must be quick and must not throw (an exception is logged and
 * ignored).
 */
public interface CallObserver {
  /** A unary call's result (before {@link #onEnd}). */
  default void onResult(ResponseEnvelope<JsonNode> result) {}

  /** One item of a stream, as the subscriber receives it. */
  default void onItem(ResponseEnvelope<JsonNode> item) {}

  /**
   * The call is over: empty when it succeeded (a result, or a stream completed), else the error it
   * ended with (CANCELLED when a stream's subscriber cancelled). Called exactly once.
   */
  default void onEnd(Optional<CallError> failure) {}
}
