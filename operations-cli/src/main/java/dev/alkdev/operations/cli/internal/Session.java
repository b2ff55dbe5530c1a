package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.cli.ExitCodes;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One run's loaded operations: the registry every source registered into, and the sources, closed
 * together (once, whether by the command or by the Ctrl-C hook).
 */
public final class Session implements AutoCloseable {
  private final OperationRegistry registry;
  private final SourceSet sources;
  private final AtomicBoolean closed = new AtomicBoolean();

  private Session(OperationRegistry registry, SourceSet sources) {
    this.registry = registry;
    this.sources = sources;
  }

  static Session open(SourceSet sources, Duration loadTimeout, SourceSet.Progress progress) {
    OperationRegistry registry = OperationRegistry.create();
    Session session = new Session(registry, sources);
    try {
      sources.load(registry, loadTimeout, progress);
      return session;
    } catch (RuntimeException e) {
      session.close();
      throw e;
    }
  }

  public OperationRegistry registry() {
    return registry;
  }

  /** The spec of {@code id}, or a failure that suggests close ids and {@code ops list}. */
  public OperationSpec require(String id) {
    Optional<OperationSpec> spec = registry.getSpec(id);
    if (spec.isPresent()) {
      return spec.get();
    }
    List<RemoteSource> remotes = remotes();
    if (!remotes.isEmpty()) {
      throw nobodyServes(id, remotes);
    }
    List<String> close =
        Suggestions.closest(id, registry.list().stream().map(OperationSpec::id).toList(), 3);
    String did = close.isEmpty() ? null : "did you mean " + String.join(", ", close) + "?";
    String list = "run `ops list` to see every operation";
    throw did == null
        ? new Failure(ExitCodes.OPERATION_NOT_FOUND, "unknown operation " + id, list)
        : new Failure(ExitCodes.OPERATION_NOT_FOUND, "unknown operation " + id, did, list);
  }

  /** The remote transports of this run ({@code --nats}, {@code --redis}, {@code --ws}). */
  List<RemoteSource> remotes() {
    return sources.sources().stream()
        .filter(RemoteSource.class::isInstance)
        .map(RemoteSource.class::cast)
        .toList();
  }

  /**
   * With remote transports, an id nobody has announced is not "unknown": the nodes were asked and
   * answered (the source waited for that), and none serves it, which is what NO_RESPONDERS says.
   */
  private static CallError nobodyServes(String id, List<RemoteSource> remotes) {
    StringBuilder where = new StringBuilder();
    int nodes = 0;
    for (RemoteSource remote : remotes) {
      where
          .append(where.length() == 0 ? "" : ", ")
          .append(remote.remote().kind())
          .append(' ')
          .append(remote.name());
      nodes += remote.nodes().size();
    }
    return CallError.of(
        ErrorCode.NO_RESPONDERS,
        "No node serves "
            + id
            + " here or on "
            + where
            + " ("
            + nodes
            + (nodes == 1 ? " node answered)" : " nodes answered)"));
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        registry.close();
      } finally {
        sources.close();
      }
    }
  }
}
