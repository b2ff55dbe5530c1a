package dev.alkdev.operations.transport.websocket;

/**
 * What a {@link WebSocketHub} holds and has refused.
 *
 * @param connections spokes connected now
 * @param queuedBytes bytes waiting to be written to spokes now, all connections together (each at
 *     most {@code maxQueuedBytes})
 * @param refusedUpgrades upgrades refused at the handshake (Origin, authentication, limit)
 * @param denied subscribes and publishes refused by the permission rules or limits
 * @param cut connections the hub closed: too slow, a broken frame
 * @param malformedFrames frames that were not of this protocol
 * @param openCalls calls made by spokes that are still open
 * @param servedCalls calls served by spokes that are still running
 * @param topics topics with at least one subscriber
 */
public record HubStats(
    int connections,
    long queuedBytes,
    long refusedUpgrades,
    long denied,
    long cut,
    long malformedFrames,
    int openCalls,
    int servedCalls,
    int topics) {}
