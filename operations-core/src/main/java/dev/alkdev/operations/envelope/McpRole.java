package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/** Who a content block is meant for, in {@link McpAnnotations#audience()}. */
public enum McpRole {
  USER("user"),
  ASSISTANT("assistant");

  private final String wireName;

  McpRole(String wireName) {
    this.wireName = wireName;
  }

  /** The JSON value: {@code "user"} or {@code "assistant"}. */
  @JsonValue
  public String wireName() {
    return wireName;
  }

  /** The role whose wire name is exactly {@code wireName}, if there is one. */
  public static Optional<McpRole> fromWireName(String wireName) {
    for (McpRole role : values()) {
      if (role.wireName.equals(wireName)) {
        return Optional.of(role);
      }
    }
    return Optional.empty();
  }
}
