package dev.alkdev.operations.jetty.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;

/**
 * The error a server gives when it cannot listen: UNAVAILABLE, naming the server, the address and
 * the operating system's reason ("Address already in use"), which Jetty's own message ("Failed to
 * bind to /127.0.0.1:8080") leaves in its cause.
 */
public final class BindFailure {
  private BindFailure() {}

  public static CallError of(String server, String host, int port, Throwable failure) {
    String shownHost = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return CallError.builder(
            ErrorCode.UNAVAILABLE,
            "The "
                + server
                + " could not listen on "
                + shownHost
                + ":"
                + port
                + ": "
                + reason(failure))
        .cause(failure)
        .build();
  }

  /** The innermost message of {@code failure}'s causes: the system's words, not a wrapper's. */
  static String reason(Throwable failure) {
    String reason = failure.getMessage();
    // At most 16 causes deep: a chain that loops back on itself still ends.
    Throwable t = failure.getCause();
    for (int depth = 0; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        reason = t.getMessage();
      }
    }
    return reason != null ? reason : failure.getClass().getSimpleName();
  }
}
