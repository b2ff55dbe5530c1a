package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.cli.ExitCodes;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One run's loaded operations: the registry every source registered into, and the sources, closed
 * together (once, whether by the command or by the Ctrl-C hook).
 */
public final class Session implements AutoCloseable {
  private final OperationRegistry registry;
  private final SourceSet sources;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final List<Runnable> interruptActions = new CopyOnWriteArrayList<>();
  private volatile Thread signalHook;

  private Session(OperationRegistry registry, SourceSet sources) {
    this.registry = registry;
    this.sources = sources;
  }

  /**
   * Opens the sources into a new registry.
   *
   * @param closeOnSignal whether SIGINT and SIGTERM (the JVM's shutdown) close the session: the
   *     commands' {@link #onInterrupt} actions run first (cancelling calls, so servers hear {@code
   *     notifications/cancelled}), then every source closes (killing stdio servers' process trees,
   *     ending HTTP sessions). From the start of loading, so a signal while a slow server starts
   *     leaves nothing behind either. {@code ops serve} drains on its own instead.
   */
  static Session open(
      SourceSet sources, Duration loadTimeout, SourceSet.Progress progress, boolean closeOnSignal) {
    OperationRegistry registry = OperationRegistry.create();
    Session session = new Session(registry, sources);
    if (closeOnSignal) {
      session.installSignalHook();
    }
    try {
      sources.load(registry, loadTimeout, progress);
      return session;
    } catch (RuntimeException e) {
      session.close();
      throw e;
    }
  }

  /**
   * Runs {@code action} when the process is interrupted (SIGINT, SIGTERM) while the session is
   * open, before the sources close; e.g. cancel the call in flight, say what was cut short.
   */
  Registration onInterrupt(Runnable action) {
    interruptActions.add(action);
    return () -> interruptActions.remove(action);
  }

  private void installSignalHook() {
    Thread hook =
        new Thread(
            () -> {
              for (Runnable action : interruptActions) {
                try {
                  action.run();
                } catch (RuntimeException e) {
                  // The others run, and the sources close, whatever one action does.
                }
              }
              close();
            },
            "ops-interrupted");
    signalHook = hook;
    Runtime.getRuntime().addShutdownHook(hook);
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
    Thread hook = signalHook;
    if (hook != null && Thread.currentThread() != hook) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running (a signal came); it closes the session too, harmlessly.
      }
    }
    if (closed.compareAndSet(false, true)) {
      try {
        registry.close();
      } finally {
        sources.close();
      }
    }
  }
}
