package dev.alkdev.operations.transport.websocket;

/**
 * What a {@link WebSocketSpoke} has been through.
 *
 * @param disconnects times the connection to the hub dropped
 * @param reconnects times a new connection replaced a dropped one
 * @param subscriptions subscriptions held now
 * @param droppedMessages messages its subscriptions dropped because their buffers were full
 */
public record SpokeStats(
    long disconnects, long reconnects, int subscriptions, long droppedMessages) {}
