package dev.alkdev.operations.serving;

/**
 * What a serving pipeline is doing now, for monitoring and tests.
 *
 * @param running calls admitted and not yet ended
 * @param maxConcurrentCalls the most calls it runs at once
 * @param closed whether it has stopped taking calls
 * @param executionErrors calls served so far that ended with EXECUTION_ERROR: a handler failed (the
 *     library logs each such failure once, at DEBUG, with its stack trace, and counts it here)
 */
public record ServingStats(
    int running, int maxConcurrentCalls, boolean closed, long executionErrors) {}
