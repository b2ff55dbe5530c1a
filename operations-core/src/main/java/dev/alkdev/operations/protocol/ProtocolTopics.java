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

  private ProtocolTopics() {}

  /**
   * Whether {@code topic} can be a caller's inbox: {@link #INBOX_PREFIX} followed by 1 to 128 ASCII
   * letters, digits, '_', '.', ':' or '-' (what {@link CallEvents#isValidRequestId} accepts). A
   * serving side replies only to such topics, never to request or control topics.
   */
  public static boolean isInbox(String topic) {
    return topic.startsWith(INBOX_PREFIX)
        && CallEvents.isValidRequestId(topic.substring(INBOX_PREFIX.length()));
  }

  /** The topic that carries requests for {@code operationId}. */
  public static String request(String operationId) {
    return REQUEST_PREFIX + operationId;
  }
}
