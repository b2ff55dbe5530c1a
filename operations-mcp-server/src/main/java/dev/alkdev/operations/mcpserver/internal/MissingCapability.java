package dev.alkdev.operations.mcpserver.internal;

/**
 * In a call's failure: the handler asked the client for something it did not declare it can do (an
 * elicitation from a client without {@code elicitation}, say). The call is refused with {@code
 * -32021} and the capability it needs, as 2026-07-28 says.
 */
final class MissingCapability extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final String capability;

  MissingCapability(String capability) {
    super("The client did not declare the " + capability + " capability", null, false, false);
    this.capability = capability;
  }
}
