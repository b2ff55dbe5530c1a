package dev.alkdev.operations.remote.internal;

/** How a failure is named in a log line or a reason: its root cause, in one line. */
public final class Failures {
  private Failures() {}

  /** The innermost cause's class and message, as {@code "IOException: reset"}. */
  public static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
  }
}
