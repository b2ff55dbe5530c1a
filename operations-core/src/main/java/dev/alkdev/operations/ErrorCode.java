package dev.alkdev.operations;

/**
 * The closed set of error codes every {@link CallError} carries, locally and on the wire.
 *
 * <p>The set mirrors the seeds' call protocol and the status vocabularies of gRPC and the Vert.x
 * event bus. Whether a code is worth retrying by default is fixed here so that every transport and
 * caller agrees; a particular error may still override it.
 */
public enum ErrorCode {
  /** No operation with that id, or no handler registered for it. */
  OPERATION_NOT_FOUND(false),
  /** The input (or another value) does not match its schema; the details list every error. */
  INVALID_INPUT(false),
  /** The caller could not be identified. */
  UNAUTHENTICATED(false),
  /** The caller is identified but lacks a required scope. */
  ACCESS_DENIED(false),
  /** The call's deadline passed before it completed. */
  DEADLINE_EXCEEDED(false),
  /** The call was cancelled by its caller. */
  CANCELLED(false),
  /** Nothing serves the operation right now. */
  NO_RESPONDERS(true),
  /** The peer or transport is unreachable or went away. */
  UNAVAILABLE(true),
  /** A limit was reached: a queue, a buffer, a size cap. */
  RESOURCE_EXHAUSTED(true),
  /** A message broke the call protocol (malformed event, wrong version). */
  PROTOCOL_ERROR(false),
  /** The handler ran and failed; the cause stays on the side that ran it. */
  EXECUTION_ERROR(false);

  private final boolean retryableByDefault;

  ErrorCode(boolean retryableByDefault) {
    this.retryableByDefault = retryableByDefault;
  }

  /** Whether an error with this code is worth retrying unless the error says otherwise. */
  public boolean retryableByDefault() {
    return retryableByDefault;
  }
}
