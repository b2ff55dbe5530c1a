/**
 * Operations across machines, on any {@link dev.alkdev.operations.pubsub.PubSub}: a {@link
 * dev.alkdev.operations.discovery.ServingNode} serves a registry as one node of many and announces
 * the full specs it serves; a {@link dev.alkdev.operations.discovery.RemoteCatalog} is the caller's
 * view of every node and operation, and routes, validates, retries and fails calls by what it knows
 * of the nodes. The messages are in docs/protocol.md ("Discovery") and {@code
 * node-events.schema.json}.
 */
package dev.alkdev.operations.discovery;
