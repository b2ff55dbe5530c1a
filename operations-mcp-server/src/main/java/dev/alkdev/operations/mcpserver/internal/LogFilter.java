package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.mcpserver.McpLogLevel;
import java.util.Optional;

/**
 * Which of a handler's log messages a call forwards as {@code notifications/message}: in 2025 the
 * session's level (set by logging/setLevel); in 2026-07-28 the request's own {@code logLevel}, and
 * none at all for a request without one (the revision forbids them then).
 */
record LogFilter(boolean perRequest, Optional<McpLogLevel> requestLevel) {
  static final LogFilter SESSION = new LogFilter(false, Optional.empty());

  static LogFilter ofRequest(Optional<McpLogLevel> level) {
    return new LogFilter(true, level);
  }

  boolean passes(McpLogLevel level, Session session) {
    if (!perRequest) {
      return level.compareTo(session.logLevel) >= 0;
    }
    return requestLevel.isPresent() && level.compareTo(requestLevel.get()) >= 0;
  }
}
