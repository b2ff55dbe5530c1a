package dev.alkdev.operations.transport.websocket;

/**
 * What a {@link WebSocketHub} holds and has refused.
 *
 * @param connections spokes connected now
 * @param queuedBytes bytes waiting to be written to spokes now, all connections together (each at
 *     most {@code maxQueuedBytes} and one message)
 * @param queuedBytesHighWater the most ever waiting to be written to one spoke
 * @param readingPaused spokes whose frames the hub is not reading now, because half their {@code
 *     maxQueuedBytes} or more waits to be written to them
 * @param pauses times a spoke's reading was paused so since the hub started
 * @param refusedUpgrades upgrades refused at the handshake (Origin, authentication, limit)
 * @param denied subscribes and publishes refused by the permission rules or limits
 * @param servingRefused of those, subscriptions to request topics and announcements refused because
 *     their identity may not serve the operation: it is the hub's own, not permitted, or held by
 *     another identity (docs/security.md)
 * @param cut connections the hub closed: too slow, a broken frame
 * @param cutForBound of those, spokes closed for not reading what they are sent: a message came
 *     with {@code maxQueuedBytes} waiting, or their reading stayed paused past {@code queueGrace}
 * @param malformedFrames frames that were not of this protocol
 * @param openCalls calls made by spokes that are still open
 * @param servedCalls calls served by spokes that are still running
 * @param topics topics with at least one subscriber
 */
public record HubStats(
    int connections,
    long queuedBytes,
    long queuedBytesHighWater,
    int readingPaused,
    long pauses,
    long refusedUpgrades,
    long denied,
    long servingRefused,
    long cut,
    long cutForBound,
    long malformedFrames,
    int openCalls,
    int servedCalls,
    int topics) {}
