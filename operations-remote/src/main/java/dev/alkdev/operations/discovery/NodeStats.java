package dev.alkdev.operations.discovery;

import dev.alkdev.operations.serving.OperationStats;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One node's answer to {@link RemoteCatalog#stats}: its statistics per operation the asker may see,
 * or that it did not answer in time.
 *
 * @param nodeId the node
 * @param answered false when the node did not answer within the timeout; then everything else is
 *     empty
 * @param startedAt when its serving pipeline started (the start of its counts)
 * @param inFlight calls it runs now, every operation's
 * @param draining whether it is leaving
 * @param saturated whether a lane of its serving pipeline is full: new calls of that kind are
 *     refused with RESOURCE_EXHAUSTED until some end
 * @param operations per operation, sorted by id
 * @param omitted operations left out because the answer would not fit in one message (the least
 *     called go first)
 */
public record NodeStats(
    String nodeId,
    boolean answered,
    Optional<Instant> startedAt,
    int inFlight,
    boolean draining,
    boolean saturated,
    List<OperationStats> operations,
    int omitted) {

  public NodeStats {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(startedAt, "startedAt");
    operations = List.copyOf(operations);
  }

  /** A node that did not answer in time. */
  static NodeStats silent(String nodeId) {
    return new NodeStats(nodeId, false, Optional.empty(), 0, false, false, List.of(), 0);
  }

  static NodeStats of(NodeEvent.Stats stats) {
    List<OperationStats> sorted =
        stats.operations().stream()
            .sorted((a, b) -> a.operationId().compareTo(b.operationId()))
            .toList();
    return new NodeStats(
        stats.nodeId(),
        true,
        Optional.of(stats.startedAt()),
        stats.inFlight(),
        stats.draining(),
        stats.saturated(),
        sorted,
        stats.omitted());
  }
}
