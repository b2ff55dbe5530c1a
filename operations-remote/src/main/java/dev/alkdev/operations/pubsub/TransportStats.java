package dev.alkdev.operations.pubsub;

/**
 * A snapshot of what a transport has carried since it was made: counts only, so that the core needs
 * no metrics library (module {@code operations-metrics} reads it into meters). Every count only
 * grows.
 *
 * @param published messages this transport sent out (handed to its receivers or its connection)
 * @param publishedBytes payload bytes of those messages
 * @param received messages this transport's subscriptions were handed
 * @param receivedBytes payload bytes of those messages
 * @param dropped messages lost on the way in because a receiving buffer was full, or on the way out
 *     because the connection could not take them
 * @param reconnects times a remote transport got its connection back after losing it
 * @param slowConsumerEvents times a broker or peer reported or cut a consumer that fell behind
 */
public record TransportStats(
    long published,
    long publishedBytes,
    long received,
    long receivedBytes,
    long dropped,
    long reconnects,
    long slowConsumerEvents) {

  /** All zero: what a transport that keeps no statistics reports. */
  public static final TransportStats NONE = new TransportStats(0, 0, 0, 0, 0, 0, 0);

  public TransportStats {
    if (published < 0
        || publishedBytes < 0
        || received < 0
        || receivedBytes < 0
        || dropped < 0
        || reconnects < 0
        || slowConsumerEvents < 0) {
      throw new IllegalArgumentException("transport statistics are counts, never negative");
    }
  }
}
