package dev.alkdev.operations.protocol;

/**
 * Thrown by {@link StreamingEventReader} for a message it leaves to the tree reader, and by {@link
 * EventWriter} for a node only the mapper writes; shared and without a stack trace, since it never
 * leaves the protocol package.
 */
final class NotPlain extends RuntimeException {
  private static final long serialVersionUID = 1L;
  static final NotPlain INSTANCE = new NotPlain();

  private NotPlain() {
    super("not a plain event", null, false, false);
  }
}
