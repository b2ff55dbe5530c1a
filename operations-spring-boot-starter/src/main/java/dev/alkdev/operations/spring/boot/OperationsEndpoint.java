package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.serving.OperationStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code operations} Actuator endpoint ({@code /actuator/operations} once exposed with {@code
 * management.endpoints.web.exposure.include}): every operation of the registry with its spec (the
 * JSON form the wire protocol announces) and what the serving pipeline measured of it (calls,
 * errors by code, in flight, latency); {@code /actuator/operations/{id}} for one. Plain maps, so
 * any Actuator serializer writes them.
 */
@Endpoint(id = "operations")
public final class OperationsEndpoint {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final OperationRegistry registry;
  private final OperationServer server;

  OperationsEndpoint(OperationRegistry registry, OperationServer server) {
    this.registry = registry;
    this.server = server;
  }

  /** Every operation, sorted by id. */
  @ReadOperation
  public Map<String, Object> operations() {
    Map<String, OperationStats> stats = stats();
    List<Map<String, Object>> operations =
        registry.list().stream()
            .sorted(java.util.Comparator.comparing(OperationSpec::id))
            .map(spec -> describe(spec, Optional.ofNullable(stats.get(spec.id()))))
            .toList();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("count", operations.size());
    body.put("serving", JSON.convertValue(server.stats(), Map.class));
    body.put("operations", operations);
    return body;
  }

  /** One operation; absent (404) if the registry has no such id. */
  @ReadOperation
  public Map<String, Object> operation(@Selector String id) {
    return registry
        .getSpec(id)
        .map(spec -> describe(spec, Optional.ofNullable(stats().get(id))))
        .orElse(null);
  }

  private Map<String, OperationStats> stats() {
    return server.operationStats().stream()
        .collect(Collectors.toMap(OperationStats::operationId, Function.identity(), (a, b) -> a));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> describe(OperationSpec spec, Optional<OperationStats> stats) {
    Map<String, Object> operation = new LinkedHashMap<>();
    operation.put("id", spec.id());
    operation.put("spec", JSON.convertValue(spec.toJson(), Map.class));
    operation.put(
        "stats",
        stats.<Map<String, Object>>map(s -> JSON.convertValue(s, Map.class)).orElse(Map.of()));
    return operation;
  }
}
