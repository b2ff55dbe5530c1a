package dev.alkdev.operations.discovery;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A serving node as a {@link RemoteCatalog} knows it.
 *
 * @param nodeId the node's id
 * @param operations the ids of the operations it serves, sorted; empty until its specs are known
 * @param specsKnown whether its specs have arrived (a node heard of by a heartbeat is asked)
 * @param inFlight the calls it runs, as its last heartbeat said
 * @param leaving whether it is draining: it takes no new calls
 * @param heartbeatInterval how often it says it is alive
 */
public record RemoteNode(
    String nodeId,
    List<String> operations,
    boolean specsKnown,
    int inFlight,
    boolean leaving,
    Duration heartbeatInterval) {
  public RemoteNode {
    Objects.requireNonNull(nodeId, "nodeId");
    operations = List.copyOf(operations);
    Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
  }
}
