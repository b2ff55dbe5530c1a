package dev.alkdev.operations.discovery;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.pubsub.PubSub;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts a node's specs into {@code node.specs} messages that each fit the transport, and puts them
 * back together on the caller's side.
 */
final class SpecParts {
  private static final Logger LOG = LoggerFactory.getLogger(SpecParts.class);

  /** Room for a part's own fields (type, node id, digest, part numbers) around its specs. */
  static final int PART_OVERHEAD = 512;

  record Source(List<OperationSpec> specs, String digest) {}

  private SpecParts() {}

  /**
   * The parts, in order. A spec too large for a message of its own cannot be announced: it is left
   * out and logged (it is still served; callers without discovery reach it).
   */
  static List<NodeEvent.Specs> split(String nodeId, Source source, PubSub pubsub) {
    int room =
        pubsub.maxMessageBytes() - PART_OVERHEAD - source.digest().length() - nodeId.length();
    List<List<OperationSpec>> groups = new ArrayList<>();
    List<OperationSpec> group = new ArrayList<>();
    int used = 0;
    for (OperationSpec spec : source.specs()) {
      int size = NodeEvents.specBytes(spec);
      if (size > room) {
        LOG.warn(
            "The spec of {} is {} bytes, too large to announce on this transport; it is left out",
            spec.id(),
            size);
        continue;
      }
      if (used + size > room) {
        groups.add(group);
        group = new ArrayList<>();
        used = 0;
      }
      group.add(spec);
      used += size;
    }
    groups.add(group); // the last one; also the only, empty one when the node serves nothing
    List<NodeEvent.Specs> parts = new ArrayList<>(groups.size());
    for (int i = 0; i < groups.size(); i++) {
      parts.add(new NodeEvent.Specs(nodeId, source.digest(), i + 1, groups.size(), groups.get(i)));
    }
    return parts;
  }

  /** The parts of one node's specs as they arrive; complete when every part is in. */
  static final class Assembly {
    private final String digest;
    private final NodeEvent.Specs[] parts;
    private int received;

    Assembly(String digest, int parts) {
      this.digest = digest;
      this.parts = new NodeEvent.Specs[parts];
    }

    String digest() {
      return digest;
    }

    /** Adds a part; returns every spec once the last part is in. */
    java.util.Optional<List<OperationSpec>> add(NodeEvent.Specs part) {
      if (part.parts() != parts.length || parts[part.part() - 1] != null) {
        return java.util.Optional.empty(); // a repeat, or another cut of the same digest
      }
      parts[part.part() - 1] = part;
      received++;
      if (received < parts.length) {
        return java.util.Optional.empty();
      }
      List<OperationSpec> specs = new ArrayList<>();
      for (NodeEvent.Specs p : parts) {
        specs.addAll(p.specs());
      }
      return java.util.Optional.of(specs);
    }
  }
}
