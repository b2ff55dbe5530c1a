package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.discovery.RemoteNode;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.serving.ServingStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code operations} health: DOWN when a configured transport (NATS, Redis) has lost its broker
 * or the serving pipeline is closed, otherwise UP. Details: the serving capacity in use and whether
 * a lane is full ({@code saturated}: a moment's state, reported but not a reason for DOWN, so a
 * busy instance is not restarted for being busy), each transport's state and the nodes known on
 * each importing transport, and the servers running.
 */
public final class OperationsHealthIndicator implements HealthIndicator {
  private final OperationServer server;
  private final OperationsTransports transports;
  private final OperationsLoader loader;
  private final OperationsServing serving;

  OperationsHealthIndicator(
      OperationServer server,
      OperationsTransports transports,
      OperationsLoader loader,
      OperationsServing serving) {
    this.server = server;
    this.transports = transports;
    this.loader = loader;
    this.serving = serving;
  }

  @Override
  public Health health() {
    boolean up = true;
    ServingStats stats = server.stats();
    Map<String, Object> capacity = new LinkedHashMap<>();
    capacity.put("calls", stats.calls());
    capacity.put("maxConcurrentCalls", stats.maxConcurrentCalls());
    capacity.put("streams", stats.streams());
    capacity.put("maxConcurrentStreams", stats.maxConcurrentStreams());
    capacity.put("waiting", stats.waiting());
    capacity.put("refused", stats.refused());
    capacity.put("saturated", stats.saturated());
    if (stats.closed()) {
      up = false;
    }
    Map<String, Object> transportDetails = new LinkedHashMap<>();
    Map<String, PubSub> connected = transports.connected();
    for (String kind : transports.kinds()) {
      PubSub pubsub = connected.get(kind);
      boolean isUp = pubsub != null && pubsub.isConnected();
      up &= isUp;
      transportDetails.put(
          kind, Map.of("url", transports.shownUrl(kind), "status", isUp ? "UP" : "DOWN"));
    }
    Map<String, Object> nodes = new LinkedHashMap<>();
    for (Map.Entry<String, List<RemoteNode>> entry : loader.nodes().entrySet()) {
      nodes.put(entry.getKey(), entry.getValue().stream().map(RemoteNode::nodeId).toList());
    }
    Health.Builder health = up ? Health.up() : Health.down();
    health.withDetail("serving", capacity).withDetail("listeners", serving.listeners());
    if (!transportDetails.isEmpty()) {
      health.withDetail("transports", transportDetails);
    }
    if (!nodes.isEmpty()) {
      health.withDetail("nodes", nodes);
    }
    return health.build();
  }
}
