package dev.alkdev.operations.discovery;

/** How a {@link RemoteCatalog} picks one of the nodes that serve an operation. */
public enum Routing {
  /** In turn, per operation. */
  ROUND_ROBIN,
  /**
   * The node with the fewest of this caller's calls in flight (in turn among equals): a slow node
   * gets fewer new calls. The default.
   */
  LEAST_IN_FLIGHT
}
