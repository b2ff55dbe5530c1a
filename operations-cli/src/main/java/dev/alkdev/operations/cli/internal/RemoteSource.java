package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.RemoteNode;
import dev.alkdev.operations.discovery.TrustedNodes;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.source.OperationSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@code ops --nats URL} (or {@code --redis}, {@code --ws}): every operation served by the nodes on
 * a remote transport, through a {@link RemoteCatalog}, registered into the run's registry so that
 * list, describe, call and subscribe treat them as local ones. Loading connects, asks the nodes,
 * and waits until their answers have come in (so "nobody serves it" is a finding, not a race).
 */
final class RemoteSource implements OperationSource {
  /** No news for this long after the query counts as every node having answered. */
  static final Duration QUIET = Duration.ofMillis(250);

  private final RemoteTransports.Remote remote;
  private final Duration loadTimeout;
  private final Map<String, String> environment;
  private final Optional<TrustedNodes> trust;
  private final Object lock = new Object();
  private PubSub pubsub; // guarded by lock
  private RemoteCatalog catalog; // guarded by lock
  private Registration registration; // guarded by lock
  private boolean closed; // guarded by lock

  RemoteSource(
      RemoteTransports.Remote remote,
      Duration loadTimeout,
      Map<String, String> environment,
      Optional<TrustedNodes> trust) {
    this.remote = remote;
    this.trust = trust;
    this.loadTimeout = loadTimeout;
    this.environment = environment;
  }

  @Override
  public String name() {
    return remote.shownUrl();
  }

  @Override
  public String kind() {
    return switch (remote.kind()) {
      case "nats" -> "NATS";
      case "redis" -> "Redis";
      case "ws" -> "WebSocket hub";
      default -> remote.kind();
    };
  }

  @Override
  public CompletableFuture<Void> load(OperationRegistry registry) {
    CompletableFuture<Void> loaded = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                connectAndRegister(registry);
                loaded.complete(null);
              } catch (RuntimeException e) {
                loaded.completeExceptionally(e);
              }
            },
            "ops-remote-" + remote.kind());
    thread.setDaemon(true);
    thread.start();
    return loaded;
  }

  private void connectAndRegister(OperationRegistry registry) {
    PubSub connected = RemoteTransports.connect(remote, loadTimeout, environment);
    RemoteCatalog opened;
    synchronized (lock) {
      if (closed) {
        connected.close();
        return;
      }
      pubsub = connected;
      RemoteCatalog.Builder builder = RemoteCatalog.builder(connected);
      trust.ifPresent(builder::trustedNodes);
      opened = builder.build();
      catalog = opened;
    }
    opened.awaitSettled(QUIET, loadTimeout);
    synchronized (lock) {
      if (!closed) {
        registration = opened.registerInto(registry);
      }
    }
  }

  /** The catalog, once loaded. */
  RemoteCatalog catalog() {
    synchronized (lock) {
      if (catalog == null) {
        throw new IllegalStateException(remote.flag() + " is not loaded");
      }
      return catalog;
    }
  }

  /** The nodes that answered, for messages. */
  List<RemoteNode> nodes() {
    return catalog().nodes();
  }

  RemoteTransports.Remote remote() {
    return remote;
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      if (registration != null) {
        registration.remove();
      }
      if (catalog != null) {
        catalog.close();
      }
      if (pubsub != null) {
        pubsub.close();
      }
    }
  }
}
