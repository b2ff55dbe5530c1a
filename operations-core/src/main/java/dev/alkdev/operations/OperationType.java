package dev.alkdev.operations;

/** What kind of operation a spec describes; decides how it is called and dispatched. */
public enum OperationType {
  /** Reads; safe to retry. Called with {@code execute}, one result. */
  QUERY,
  /** Changes something. Called with {@code execute}, one result. */
  MUTATION,
  /** Streams results. Called with {@code subscribe}, one envelope per item. */
  SUBSCRIPTION
}
