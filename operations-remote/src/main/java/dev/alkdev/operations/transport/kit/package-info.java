/**
 * The transport kit: what every connection-based transport of the {@link
 * dev.alkdev.operations.pubsub.PubSub} SPI shares, written once. A {@link
 * dev.alkdev.operations.transport.kit.ConnectionKeeper} keeps one connection at a time and its
 * subscriptions on it; the transport supplies a {@link
 * dev.alkdev.operations.transport.kit.Connector} (connect, attach, detach, publish) and reports a
 * lost connection. {@link dev.alkdev.operations.transport.kit.TopicTable} is the delivery rule of a
 * broker that holds the subscriptions itself (plain subscribers all, one member of each queue
 * group); {@link dev.alkdev.operations.transport.kit.Backoff} the waits between tries.
 * docs/transports.md says how to write a transport on it.
 */
package dev.alkdev.operations.transport.kit;
