package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.PubSubFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The remote transports this {@code ops} has: every {@link PubSubFactory} that {@link
 * ServiceLoader} finds (the transport modules provide them), so ops connects to {@code nats},
 * {@code redis} or {@code ws} by kind without compiling against any of them.
 */
final class RemoteTransports {
  private RemoteTransports() {}

  /** A remote transport named on the command line: its kind, and the URL after the flag. */
  record Remote(String kind, String url) {
    /** The flag that named it, for messages. */
    String flag() {
      return "--" + kind;
    }

    /** The URL with any credentials in it replaced. */
    String shownUrl() {
      return PubSubFactory.Target.redacted(url);
    }
  }

  /**
   * Connects to {@code remote}: blocks up to {@code timeout}.
   *
   * @throws SourceSet.SourceFailure when no transport of its kind is on the path, or its URL or
   *     settings are wrong
   * @throws dev.alkdev.operations.CallError UNAVAILABLE when it cannot be reached in time
   */
  static PubSub connect(Remote remote, Duration timeout, Map<String, String> environment) {
    PubSubFactory.Target target =
        new PubSubFactory.Target(remote.kind(), remote.url(), timeout, environment);
    Optional<PubSub> pubsub;
    try {
      pubsub = PubSubFactory.connectFirst(factories(), target);
    } catch (IllegalArgumentException e) {
      throw new SourceSet.SourceFailure(
          remote.flag() + " " + remote.shownUrl() + ": " + e.getMessage());
    }
    return pubsub.orElseThrow(
        () ->
            new SourceSet.SourceFailure(
                remote.flag()
                    + ": this ops has no "
                    + remote.kind()
                    + " transport (it comes with operations-transport-"
                    + (remote.kind().equals("ws") ? "websocket" : remote.kind())
                    + "); use a build that includes it"));
  }

  /** Every factory found ({@link PubSubFactory#installed}). */
  static List<PubSubFactory> factories() {
    return PubSubFactory.installed(RemoteTransports.class.getClassLoader());
  }
}
