package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportCounters;
import java.util.Arrays;

/**
 * What the transport statistics (D60) cost: the in-process transport, the cheapest one (so the
 * counting weighs most there), publishing to one inline subscriber, against the counting alone (one
 * {@code published} and one {@code received}, what each such message adds), measured interleaved
 * round after round so both see the same load. Prints ns per message of each, their p50 over the
 * rounds, and the counting's share of a publish.
 *
 * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.TransportCountingInterleaved [rounds]</pre>
 */
public final class TransportCountingInterleaved {
  private static final int MESSAGES = 10_000;

  private TransportCountingInterleaved() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    byte[] payload = new byte[256];
    long[] sink = new long[1];
    try (InProcessPubSub pubsub = InProcessPubSub.create()) {
      pubsub.subscribe("bench", SubscribeOptions.defaults(), m -> sink[0] += m.payload().length);
      pubsub.transportStats(); // it counts from the first look (D60): observed, as with metrics
      TransportCounters counters = TransportCounters.create();
      for (int i = 0; i < 50; i++) {
        publish(pubsub, payload);
        count(counters, payload);
      }
      long[][] nanos = new long[2][rounds];
      for (int r = 0; r < rounds; r++) {
        long start = System.nanoTime();
        publish(pubsub, payload);
        nanos[0][r] = System.nanoTime() - start;
        start = System.nanoTime();
        count(counters, payload);
        nanos[1][r] = System.nanoTime() - start;
      }
      for (long[] n : nanos) {
        Arrays.sort(n);
      }
      double publish = (double) nanos[0][rounds / 2] / MESSAGES;
      double counting = (double) nanos[1][rounds / 2] / MESSAGES;
      System.out.printf(
          "in-process publish + inline delivery, counted: p50 %.1f ns/message%n", publish);
      System.out.printf(
          "the counting alone (published + received):  p50 %.1f ns/message%n", counting);
      System.out.printf("counting's share of a publish: %.1f%%%n", 100 * counting / publish);
      if (sink[0] == 42 || counters.snapshot().published() == 42) {
        System.out.println(); // keeps the work observable
      }
    }
    System.exit(0);
  }

  private static void publish(InProcessPubSub pubsub, byte[] payload) {
    for (int i = 0; i < MESSAGES; i++) {
      pubsub.publish("bench", payload);
    }
  }

  private static void count(TransportCounters counters, byte[] payload) {
    for (int i = 0; i < MESSAGES; i++) {
      counters.published(payload.length);
      counters.received(payload.length);
    }
  }
}
