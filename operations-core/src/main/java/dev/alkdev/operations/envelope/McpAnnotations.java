package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.alkdev.operations.envelope.internal.WireJson;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Hints on an MCP content block. Every field is optional.
 *
 * @param audience who the block is for
 * @param priority how important the block is (MCP says 0 to 1; not enforced, as in the seeds)
 * @param lastModified when the content last changed, an ISO 8601 string kept exactly as received
 * @param unknownFields fields newer MCP versions add, kept so the JSON round-trips unchanged
 */
public record McpAnnotations(
    Optional<List<McpRole>> audience,
    Optional<Double> priority,
    Optional<String> lastModified,
    Map<String, JsonNode> unknownFields) {

  private static final Set<String> KNOWN = Set.of("audience", "priority", "lastModified");
  private static final McpAnnotations EMPTY =
      new McpAnnotations(Optional.empty(), Optional.empty(), Optional.empty(), Map.of());

  public McpAnnotations {
    audience = Objects.requireNonNull(audience, "audience").map(List::copyOf);
    Objects.requireNonNull(priority, "priority");
    priority.ifPresent(
        value -> {
          if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("priority must be a finite number, was " + value);
          }
        });
    Objects.requireNonNull(lastModified, "lastModified");
    unknownFields = WireJson.unknownFields(unknownFields, "McpAnnotations", KNOWN);
  }

  /** Annotations with no field set. */
  public static McpAnnotations empty() {
    return EMPTY;
  }

  public McpAnnotations withAudience(McpRole... roles) {
    return new McpAnnotations(Optional.of(List.of(roles)), priority, lastModified, unknownFields);
  }

  public McpAnnotations withPriority(double priority) {
    return new McpAnnotations(audience, Optional.of(priority), lastModified, unknownFields);
  }

  public McpAnnotations withLastModified(String lastModified) {
    return new McpAnnotations(audience, priority, Optional.of(lastModified), unknownFields);
  }

  /** These annotations as the seeds' JSON; also what Jackson writes for them. */
  @JsonValue
  public ObjectNode toJson() {
    ObjectNode json = WireJson.object();
    audience.ifPresent(
        roles -> {
          ArrayNode array = json.putArray("audience");
          roles.forEach(role -> array.add(role.wireName()));
        });
    priority.ifPresent(value -> json.set("priority", WireJson.number(value)));
    lastModified.ifPresent(value -> json.put("lastModified", value));
    return WireJson.putUnknown(json, unknownFields);
  }
}
