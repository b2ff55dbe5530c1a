package dev.alkdev.operations.protocol;

/**
 * The topics the call protocol uses on a {@link dev.alkdev.operations.pubsub.PubSub}; a client in
 * another language publishes and subscribes to the same names (docs/protocol.md).
 */
public final class ProtocolTopics {
  /** Prefix of request topics: {@code ops.req.<operationId>}. */
  public static final String REQUEST_PREFIX = "ops.req.";

  /** Where callers send {@code call.aborted} and {@code call.demand}; every server listens. */
  public static final String CONTROL = "ops.ctl";

  /** Prefix of callers' inboxes: {@code ops.inbox.<32 hex digits>}. */
  public static final String INBOX_PREFIX = "ops.inbox.";

  /** The queue group servers join on request topics, so each request reaches one of them. */
  public static final String SERVER_GROUP = "ops.servers";

  /**
   * Prefix of a serving node's own topics: {@code ops.node.<nodeId>.req.<operationId>} (requests
   * routed to that node) and {@code ops.node.<nodeId>.specs} (requests for its specs). Node ids
   * have no dots, so the topic names the node and the operation without ambiguity.
   */
  public static final String NODE_PREFIX = "ops.node.";

  /**
   * Where serving nodes announce themselves and callers ask who is there ({@code node.hello},
   * {@code node.heartbeat}, {@code node.bye}, {@code node.query}); everybody listens.
   */
  public static final String NODES = "ops.nodes";

  private ProtocolTopics() {}

  /**
   * Whether {@code topic} can be a caller's inbox: {@link #INBOX_PREFIX} followed by 1 to 128 ASCII
   * letters, digits, '_', '.', ':' or '-' (what {@link CallEvents#isValidRequestId} accepts). A
   * serving side replies only to such topics, never to request or control topics.
   */
  public static boolean isInbox(String topic) {
    return topic.startsWith(INBOX_PREFIX) && WireIds.isValidRequestId(topic, INBOX_PREFIX.length());
  }

  /**
   * The inbox prefix of a connection given the private token {@code token}: {@code
   * ops.inbox.<token>.}. A broker that lets a user subscribe only to {@code ops.inbox.<token>.*}
   * keeps other users from reading its replies ({@link
   * dev.alkdev.operations.pubsub.PubSub#inboxPrefix()}).
   *
   * @throws IllegalArgumentException unless {@code token} is 1 to 64 ASCII letters, digits, '_' or
   *     '-'
   */
  public static String privateInboxPrefix(String token) {
    if (token.isEmpty() || token.length() > 64 || !token.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException(
          "A private token is 1 to 64 ASCII letters, digits, '_' or '-' (it is one subject token"
              + " and one part of a channel name), was '"
              + token
              + "'");
    }
    return INBOX_PREFIX + token + ".";
  }

  /** The topic that carries requests for {@code operationId}. */
  public static String request(String operationId) {
    return REQUEST_PREFIX + operationId;
  }

  /** The topic that carries requests for {@code operationId} routed to node {@code nodeId}. */
  public static String nodeRequest(String nodeId, String operationId) {
    return NODE_PREFIX + nodeId + ".req." + operationId;
  }

  /** The topic on which node {@code nodeId} answers requests for its specs. */
  public static String nodeSpecs(String nodeId) {
    return NODE_PREFIX + nodeId + ".specs";
  }
}
