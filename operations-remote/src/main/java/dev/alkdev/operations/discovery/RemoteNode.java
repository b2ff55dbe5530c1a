package dev.alkdev.operations.discovery;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A serving node as a {@link RemoteCatalog} knows it.
 *
 * @param nodeId the node's id
 * @param operations the ids of the operations it serves, sorted; empty until its specs are known
 * @param specsKnown whether its specs have arrived (a node heard of by a heartbeat is asked)
 * @param inFlight the calls it runs, as its last heartbeat said
 * @param leaving whether it is draining: it takes no new calls
 * @param heartbeatInterval how often it says it is alive
 * @param identity who it is: the id of the key that signed its hello, or the subject its transport
 *     authenticated; claimed unless {@code verified}, empty when nothing says
 * @param verified whether its identity was proven to this caller ({@link TrustedNodes}); a catalog
 *     that requires verified nodes routes to no other
 */
public record RemoteNode(
    String nodeId,
    List<String> operations,
    boolean specsKnown,
    int inFlight,
    boolean leaving,
    Duration heartbeatInterval,
    Optional<String> identity,
    boolean verified) {
  public RemoteNode {
    Objects.requireNonNull(nodeId, "nodeId");
    operations = List.copyOf(operations);
    Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
    Objects.requireNonNull(identity, "identity");
  }
}
