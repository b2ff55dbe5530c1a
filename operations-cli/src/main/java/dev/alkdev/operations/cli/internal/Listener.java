package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.pubsub.PubSub;
import java.util.List;
import java.util.Optional;

/**
 * One way {@code ops serve} serves the run's operations: a node on a transport, an HTTP or MCP
 * server, a hub. Started by {@link ServeCommand}; all of a run's listeners share one serving
 * pipeline, so limits and draining are counted once.
 */
interface Listener {

  /** What it is, one word: "nats", "http", "mcp-http". */
  String kind();

  /** Where to reach it: a URL, or "stdio". */
  String address();

  /** More about it for the listener's line (a node id), or empty. */
  String detail();

  /** What it serves that the user most likely did not mean (no tools at all), said loudly. */
  default List<String> warnings() {
    return List.of();
  }

  /** The transport it serves on, for its metrics: a node's or a hub's; empty for HTTP and MCP. */
  default Optional<PubSub> transport() {
    return Optional.empty();
  }

  /**
   * Stops taking new calls, lets running calls finish up to the drain timeout it was started with,
   * cancels the rest and releases what it holds. Blocks until then; never throws; harmless twice.
   */
  void close();
}
