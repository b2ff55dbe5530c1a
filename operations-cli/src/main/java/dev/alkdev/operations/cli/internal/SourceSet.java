package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.source.OperationSource;
import dev.alkdev.operations.source.SourceEntry;
import dev.alkdev.operations.source.SourceFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The sources of one run: created from the configuration, loaded all at once into one registry
 * (with a progress line on a terminal), closed together at the end.
 */
public final class SourceSet implements AutoCloseable {

  /** A source that could not be created or loaded; the message says which and why. */
  public static final class SourceFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SourceFailure(String message) {
      super(message);
    }
  }

  private final List<OperationSource> sources;

  private SourceSet(List<OperationSource> sources) {
    this.sources = List.copyOf(sources);
  }

  /** A set of sources made elsewhere (tests, embedders); closed with the set. */
  static SourceSet of(List<OperationSource> sources) {
    return new SourceSet(sources);
  }

  /**
   * Creates (does not load) the demo source if asked and one source per configured entry, each made
   * by the first {@link SourceFactory} (found with {@link ServiceLoader}) that accepts it.
   *
   * @param environment handed to every entry, for the secrets its settings name
   * @param loadTimeout handed to every entry, so a source can bound its own steps by it
   * @throws SourceFailure if no factory accepts an entry's kind, or its factory refuses it
   */
  public static SourceSet create(
      boolean demo, OpsConfig config, Map<String, String> environment, Duration loadTimeout) {
    return create(demo, config, environment, loadTimeout, factories());
  }

  /** {@link #create(boolean, OpsConfig, Map, Duration)} with the factories given, not looked up. */
  static SourceSet create(
      boolean demo,
      OpsConfig config,
      Map<String, String> environment,
      Duration loadTimeout,
      List<SourceFactory> factories) {
    List<OperationSource> sources = new ArrayList<>();
    try {
      if (demo) {
        sources.add(new DemoSource());
      }
      for (SourceEntry entry : config.sources()) {
        sources.add(
            create(entry.withEnvironment(environment).withLoadTimeout(loadTimeout), factories));
      }
    } catch (RuntimeException e) {
      sources.forEach(OperationSource::close);
      throw e;
    }
    return new SourceSet(sources);
  }

  private static OperationSource create(SourceEntry entry, List<SourceFactory> factories) {
    for (SourceFactory factory : factories) {
      Optional<OperationSource> source;
      try {
        source = factory.create(entry);
      } catch (IllegalArgumentException e) {
        throw new SourceFailure(
            "could not create " + entry.kind() + " source " + entry.name() + ": " + e.getMessage());
      }
      if (source.isPresent()) {
        return source.get();
      }
    }
    throw new SourceFailure(
        "source "
            + entry.name()
            + " is of kind "
            + entry.kind()
            + ", which is not available in this ops: no source factory on its class or module"
            + " path accepts it"
            + moduleHint(entry.kind())
            + "; remove the entry, or use a build that includes it");
  }

  /** The module that provides the kinds ops knows of, for the message above. */
  private static String moduleHint(String kind) {
    return switch (kind) {
      case "openapi" -> " (it comes with operations-openapi)";
      case "mcp" -> " (it comes with operations-mcp)";
      default -> "";
    };
  }

  /**
   * Every factory {@link ServiceLoader} finds: on the module path through {@code uses} and the
   * adapters' {@code provides}, on the class path (the shaded jar) through {@code
   * META-INF/services}. A factory that fails to load is skipped, so one broken jar does not take
   * the other kinds down.
   */
  static List<SourceFactory> factories() {
    List<SourceFactory> factories = new ArrayList<>();
    ServiceLoader.load(SourceFactory.class, SourceSet.class.getClassLoader()).stream()
        .forEach(
            provider -> {
              try {
                factories.add(provider.get());
              } catch (java.util.ServiceConfigurationError e) {
                // Said when an entry of its kind finds no factory.
              }
            });
    return factories;
  }

  /** This set and {@code more}, closed together. */
  SourceSet plus(List<? extends OperationSource> more) {
    List<OperationSource> all = new ArrayList<>(sources);
    all.addAll(more);
    return new SourceSet(all);
  }

  public List<OperationSource> sources() {
    return sources;
  }

  /**
   * Loads every source into {@code registry} at once and waits up to {@code timeout} for all.
   *
   * @throws SourceFailure naming every source that failed or did not finish in time
   */
  public void load(OperationRegistry registry, Duration timeout, Progress progress) {
    List<CompletableFuture<Void>> loads = new ArrayList<>();
    for (OperationSource source : sources) {
      CompletableFuture<Void> load;
      try {
        load = source.load(registry);
      } catch (RuntimeException e) {
        load = CompletableFuture.failedFuture(e);
      }
      loads.add(load);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    CompletableFuture<Void> all = CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
    try {
      // Polls so the progress line can follow each source; returns as soon as all are done.
      while (!all.isDone() && System.nanoTime() < deadline) {
        progress.show(sources, loads);
        try {
          all.get(
              Math.min(100, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)),
              TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
          // Looked at below, per source.
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SourceFailure("interrupted while the sources were loading");
    } finally {
      progress.clear();
    }
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < sources.size(); i++) {
      OperationSource source = sources.get(i);
      CompletableFuture<Void> load = loads.get(i);
      if (!load.isDone()) {
        load.cancel(true);
        problems.add(
            source.kind()
                + " source "
                + source.name()
                + " did not finish loading within "
                + timeout.toSeconds()
                + "s (raise --load-timeout, or check that it is reachable)");
      } else if (load.isCompletedExceptionally()) {
        Throwable cause = cause(load);
        problems.add(
            "could not load "
                + source.kind()
                + " source "
                + source.name()
                + ": "
                + (cause.getMessage() == null ? cause.toString() : cause.getMessage()));
      }
    }
    if (!problems.isEmpty()) {
      throw new SourceFailure(String.join("\n", problems));
    }
  }

  private static Throwable cause(CompletableFuture<Void> load) {
    try {
      load.join();
      return new IllegalStateException("no failure");
    } catch (CompletionException | java.util.concurrent.CancellationException e) {
      return CallError.from(
          e,
          cause ->
              CallError.of(
                  ErrorCode.UNAVAILABLE,
                  cause.getMessage() == null ? cause.toString() : cause.getMessage(),
                  cause));
    }
  }

  @Override
  public void close() {
    for (OperationSource source : sources) {
      try {
        source.close();
      } catch (RuntimeException e) {
        // close() must not throw; one that does must not keep the others open.
      }
    }
  }

  /** The "loading ..." line on stderr; silent when no one is watching. */
  public interface Progress {
    void show(List<OperationSource> sources, List<CompletableFuture<Void>> loads);

    void clear();

    Progress NONE =
        new Progress() {
          @Override
          public void show(List<OperationSource> sources, List<CompletableFuture<Void>> loads) {}

          @Override
          public void clear() {}
        };

    /** Rewrites one line of {@code err} in place; cleared before the command prints anything. */
    static Progress line(java.io.PrintWriter err) {
      return new Progress() {
        private boolean shown;

        @Override
        public void show(List<OperationSource> sources, List<CompletableFuture<Void>> loads) {
          StringBuilder line = new StringBuilder("\r\u001b[2Kloading sources:");
          for (int i = 0; i < sources.size(); i++) {
            CompletableFuture<Void> load = loads.get(i);
            String mark = !load.isDone() ? "…" : load.isCompletedExceptionally() ? "✗" : "✓";
            line.append(' ').append(sources.get(i).name()).append(' ').append(mark);
          }
          err.print(line);
          err.flush();
          shown = true;
        }

        @Override
        public void clear() {
          if (shown) {
            err.print("\r\u001b[2K");
            err.flush();
          }
        }
      };
    }
  }
}
