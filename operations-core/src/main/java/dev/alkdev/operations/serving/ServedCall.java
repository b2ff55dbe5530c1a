package dev.alkdev.operations.serving;

import dev.alkdev.operations.CallError;

/** A call being served: the adapter's handle on it. Thread-safe. */
public interface ServedCall {
  /** The call's request id (the context's). */
  String requestId();

  /**
   * The caller of a stream takes {@code n} more items (the call protocol's {@code call.demand}).
   * Ignored once the call has ended, and for unary calls.
   *
   * @throws IllegalArgumentException if {@code n < 1}
   */
  void request(long n);

  /**
   * Ends the call from the caller's side (it gave up, disconnected, or a reply could not be
   * delivered): the handler's context is cancelled with {@code reason}, and with it every call the
   * handler made. The sink hears nothing more: once this returns, no sink method runs or will run
   * for this call. Does nothing if the call has ended already.
   *
   * @return whether this ended the call (false: it had ended before)
   */
  boolean cancel(CallError reason);

  /** Whether the call has ended (its sink heard its end, or it was cancelled). */
  boolean isDone();
}
