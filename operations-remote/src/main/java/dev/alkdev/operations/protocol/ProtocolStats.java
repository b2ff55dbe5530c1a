package dev.alkdev.operations.protocol;

/**
 * Counters of one side of the protocol, for monitoring and tests.
 *
 * @param pending calls or streams under way now
 * @param late responses for calls that were no longer pending (finished, timed out, aborted, or
 *     never made here), dropped
 * @param malformed messages that were not valid events, dropped (or answered with PROTOCOL_ERROR
 *     where the sender could be told)
 */
public record ProtocolStats(long pending, long late, long malformed) {}
