package dev.alkdev.operations.protocol;

/**
 * The characters of the protocol's request ids and reply topics, checked with tables: they are
 * checked several times per event, on every request id at both ends.
 */
final class WireIds {
  private WireIds() {}

  /**
   * Whether {@code topic} may be used as a reply topic: 1 to 256 ASCII letters, digits, '_', '.',
   * ':', '/', '@' or '-' (no spaces, no wildcards: NATS '*' and '>', Redis glob characters).
   */
  static boolean isValidTopic(String topic) {
    return isMadeOf(topic, 256, Allowed.TOPIC_CHARS);
  }

  /**
   * Whether {@code requestId} is one the protocol accepts: 1 to 128 ASCII letters, digits, '_',
   * '.', ':' or '-', characters that need no escaping anywhere (UUIDs and hex fit).
   */
  static boolean isValidRequestId(String requestId) {
    return isMadeOf(requestId, 128, Allowed.REQUEST_ID_CHARS);
  }

  /** Whether {@code text} from {@code start} on is a valid request id, without a substring. */
  static boolean isValidRequestId(String text, int start) {
    return isMadeOf(text, start, 128, Allowed.REQUEST_ID_CHARS);
  }

  // In a holder: the tables exist before any static initialiser of this class could need them.
  private static final class Allowed {
    static final boolean[] TOPIC_CHARS = asciiTable("_.:/@-");
    static final boolean[] REQUEST_ID_CHARS = asciiTable("_.:-");
  }

  /** ASCII letters, digits and {@code punctuation}, as a table indexed by character. */
  private static boolean[] asciiTable(String punctuation) {
    boolean[] allowed = new boolean[128];
    for (char c = '0'; c <= '9'; c++) {
      allowed[c] = true;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      allowed[c] = true;
      allowed[c - 'a' + 'A'] = true;
    }
    for (int i = 0; i < punctuation.length(); i++) {
      allowed[punctuation.charAt(i)] = true;
    }
    return allowed;
  }

  // A loop over a table, not a regex: these run several times per event (on every request id at
  // both ends), and a regex costs ten times more; the table saves the punctuation search per char.
  private static boolean isMadeOf(String text, int maxLength, boolean[] allowed) {
    return isMadeOf(text, 0, maxLength, allowed);
  }

  /** {@link #isMadeOf(String, int, boolean[])} for the text from {@code start} on. */
  private static boolean isMadeOf(String text, int start, int maxLength, boolean[] allowed) {
    int length = text.length();
    if (length <= start || length - start > maxLength) {
      return false;
    }
    for (int i = start; i < length; i++) {
      char c = text.charAt(i);
      if (c >= allowed.length || !allowed[c]) {
        return false;
      }
    }
    return true;
  }
}
