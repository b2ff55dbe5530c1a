package dev.alkdev.operations.mcpserver;

import java.util.Locale;
import java.util.Optional;

/** MCP's log levels (RFC 5424 severities), least severe first. */
public enum McpLogLevel {
  DEBUG,
  INFO,
  NOTICE,
  WARNING,
  ERROR,
  CRITICAL,
  ALERT,
  EMERGENCY;

  /** The name on the wire: {@code "debug"}, {@code "info"}, ... */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The level named {@code wireName}, if it is one. */
  public static Optional<McpLogLevel> fromWire(String wireName) {
    for (McpLogLevel level : values()) {
      if (level.wireName().equals(wireName)) {
        return Optional.of(level);
      }
    }
    return Optional.empty();
  }
}
