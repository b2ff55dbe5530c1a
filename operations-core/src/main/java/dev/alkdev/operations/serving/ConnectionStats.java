package dev.alkdev.operations.serving;

/**
 * What a server's {@link ConnectionLimits} see and did, since it started.
 *
 * @param open connections open now
 * @param maxConnections the cap on open connections
 * @param refusedPerClient connections closed on accept because their address had its most open
 * @param cutSlowHead connections closed because a request's head took longer than allowed
 * @param cutSlowBody connections closed because a request's body arrived slower than allowed
 */
public record ConnectionStats(
    int open, int maxConnections, long refusedPerClient, long cutSlowHead, long cutSlowBody) {

  /** Connections refused or cut for any of the limits. */
  public long refusedOrCut() {
    return refusedPerClient + cutSlowHead + cutSlowBody;
  }
}
