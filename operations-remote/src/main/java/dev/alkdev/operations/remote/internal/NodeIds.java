package dev.alkdev.operations.remote.internal;

/**
 * The one check of a node id: 1 to 64 ASCII letters, digits, '_' or '-' (no dots: a node id is one
 * token of a topic). A loop, not a regular expression: a catalog checks the node of every call it
 * routes, and every discovery message names one.
 */
public final class NodeIds {
  private NodeIds() {}

  /** Whether {@code nodeId} is a node id. */
  public static boolean isValid(String nodeId) {
    int length = nodeId.length();
    if (length == 0 || length > 64) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      char c = nodeId.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code nodeId}, if it is a node id.
   *
   * @throws IllegalArgumentException naming the rule and the value, if it is not
   */
  public static String require(String nodeId) {
    if (!isValid(nodeId)) {
      throw new IllegalArgumentException(
          "A node id is 1 to 64 ASCII letters, digits, '_' or '-', was '" + nodeId + "'");
    }
    return nodeId;
  }
}
