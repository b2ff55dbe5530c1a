package dev.alkdev.operations.serving;

/**
 * What a serving pipeline is doing now, for monitoring and tests.
 *
 * @param running calls admitted and not yet ended
 * @param maxConcurrentCalls the most calls it runs at once
 * @param closed whether it has stopped taking calls
 */
public record ServingStats(int running, int maxConcurrentCalls, boolean closed) {}
