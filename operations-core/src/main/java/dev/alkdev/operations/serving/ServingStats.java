package dev.alkdev.operations.serving;

/**
 * What a serving pipeline is doing now, for readiness, monitoring and tests. Unary calls and
 * streams are two lanes with capacities of their own ({@link OperationServer.Builder}).
 *
 * @param calls unary calls (QUERY and MUTATION) admitted and not yet ended
 * @param maxConcurrentCalls the most unary calls it runs at once
 * @param streams streams (SUBSCRIPTIONs) admitted and not yet ended
 * @param maxConcurrentStreams the most streams it runs at once
 * @param callers callers (identities, or anonymous clients) with a call or stream running now
 * @param waiting blocking handlers admitted and waiting for a thread to run on (with the registry's
 *     own executors nothing waits: they grow to their lane's bound instead)
 * @param refusedServerFull calls refused so far with RESOURCE_EXHAUSTED because a lane was full
 * @param refusedCallerShare calls refused so far with RESOURCE_EXHAUSTED because their caller held
 *     its whole share of a lane
 * @param closed whether it has stopped taking calls
 * @param executionErrors calls served so far that ended with EXECUTION_ERROR: a handler failed (the
 *     library logs each such failure once, at DEBUG, with its stack trace, and counts it here)
 */
public record ServingStats(
    int calls,
    int maxConcurrentCalls,
    int streams,
    int maxConcurrentStreams,
    int callers,
    int waiting,
    long refusedServerFull,
    long refusedCallerShare,
    boolean closed,
    long executionErrors) {

  /** Calls and streams running now: everything admitted and not yet ended. */
  public int running() {
    return calls + streams;
  }

  /** Calls refused so far for capacity, whichever limit refused them. */
  public long refused() {
    return refusedServerFull + refusedCallerShare;
  }

  /**
   * Whether a lane is full, so that a new call of that kind would be refused whoever sent it: what
   * readiness reports, so a load balancer sends new work elsewhere. A caller at its own share does
   * not make the server saturated.
   */
  public boolean saturated() {
    return calls >= maxConcurrentCalls || streams >= maxConcurrentStreams;
  }

  /** Whether the server takes new calls: open and not {@link #saturated()}. */
  public boolean ready() {
    return !closed && !saturated();
  }
}
