package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.discovery.NodeSigner;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.serving.OperationServer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ops serve --nats URL} (or {@code --redis URL}, {@code --connect URL}): the run's
 * operations served as a {@link ServingNode} on a remote transport, announced with their specs, so
 * that {@code ops --nats URL ...} on another machine lists and calls them.
 */
final class NodeListener implements Listener {
  private final RemoteTransports.Remote remote;
  private final PubSub pubsub;
  private final ServingNode node;

  private NodeListener(RemoteTransports.Remote remote, PubSub pubsub, ServingNode node) {
    this.remote = remote;
    this.pubsub = pubsub;
    this.node = node;
  }

  /** Node settings shared by every transport of one {@code ops serve}. */
  record Settings(
      Optional<String> nodeId,
      Duration heartbeat,
      Duration drainTimeout,
      Duration connectTimeout,
      Map<String, String> environment,
      Optional<NodeSigner> signer) {}

  static NodeListener start(
      RemoteTransports.Remote remote, OperationServer server, Settings settings) {
    PubSub pubsub =
        RemoteTransports.connect(remote, settings.connectTimeout(), settings.environment());
    try {
      ServingNode.Builder builder =
          ServingNode.builder(server, pubsub)
              .heartbeatInterval(settings.heartbeat())
              .drainTimeout(settings.drainTimeout());
      settings.nodeId().ifPresent(builder::nodeId);
      settings.signer().ifPresent(builder::signer);
      return new NodeListener(remote, pubsub, builder.start());
    } catch (RuntimeException e) {
      pubsub.close();
      throw e;
    }
  }

  @Override
  public String kind() {
    return remote.kind();
  }

  @Override
  public String address() {
    return remote.shownUrl();
  }

  @Override
  public String detail() {
    return "node " + node.nodeId();
  }

  /** This node's id on its transport. */
  String nodeId() {
    return node.nodeId();
  }

  @Override
  public Optional<PubSub> transport() {
    return Optional.of(pubsub);
  }

  @Override
  public void close() {
    try {
      node.close();
    } finally {
      pubsub.close();
    }
  }
}
