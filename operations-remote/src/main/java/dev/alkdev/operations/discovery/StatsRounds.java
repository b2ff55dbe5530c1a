package dev.alkdev.operations.discovery;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.internal.Scheduler;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.PubSub;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link RemoteCatalog}'s questions for statistics ({@code node.stats.requested} on {@code
 * ops.nodes}): each round waits for the answers that come to the catalog's inbox under its request
 * id, and ends when every expected node has answered or at its timeout.
 */
final class StatsRounds {
  private final PubSub pubsub;
  private final String inbox;

  /** Questions still waiting for answers, by their request id. */
  private final ConcurrentHashMap<String, StatsRound> rounds = new ConcurrentHashMap<>();

  StatsRounds(PubSub pubsub, String inbox) {
    this.pubsub = pubsub;
    this.inbox = inbox;
  }

  /**
   * Asks {@code nodeId}, or every node, for statistics; completes when every node in {@code
   * expected} has answered, or after {@code timeout} with the silent ones marked.
   */
  CompletableFuture<List<NodeStats>> ask(
      Optional<String> nodeId, Set<String> expected, Identity identity, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive");
    }
    StatsRound round = new StatsRound(OperationContext.newRequestId(), expected);
    rounds.put(round.requestId, round);
    round.timer = Scheduler.schedule(round::finish, timeout.toNanos());
    Optional<Identity> sent =
        identity.equals(Identity.anonymous()) ? Optional.empty() : Optional.of(identity);
    try {
      pubsub
          .publish(
              ProtocolTopics.NODES,
              NodeEvents.encode(new NodeEvent.StatsRequested(round.requestId, inbox, nodeId, sent)))
          .whenComplete(
              (receivers, error) -> {
                if (error != null) {
                  round.fail(error);
                }
              });
    } catch (RuntimeException e) {
      round.fail(e);
    }
    return round.result;
  }

  /** One question for statistics: the answers come to the catalog's inbox, with its id. */
  private final class StatsRound {
    final String requestId;
    final Set<String> expected;
    final ConcurrentHashMap<String, NodeStats> answers = new ConcurrentHashMap<>();
    final CompletableFuture<List<NodeStats>> result = new CompletableFuture<>();
    volatile Scheduler.Timer timer;

    StatsRound(String requestId, Set<String> expected) {
      this.requestId = requestId;
      this.expected = Set.copyOf(expected);
    }

    void answer(NodeEvent.Stats stats) {
      answers.put(stats.nodeId(), NodeStats.of(stats));
      if (!expected.isEmpty() && answers.keySet().containsAll(expected)) {
        finish();
      }
    }

    void finish() {
      if (rounds.remove(requestId, this)) {
        Scheduler.Timer t = timer;
        if (t != null) {
          t.cancel();
        }
        List<NodeStats> all = new ArrayList<>(answers.values());
        for (String nodeId : expected) {
          if (!answers.containsKey(nodeId)) {
            all.add(NodeStats.silent(nodeId));
          }
        }
        all.sort((a, b) -> a.nodeId().compareTo(b.nodeId()));
        result.complete(List.copyOf(all));
      }
    }

    void fail(Throwable error) {
      if (rounds.remove(requestId, this)) {
        Scheduler.Timer t = timer;
        if (t != null) {
          t.cancel();
        }
        result.completeExceptionally(
            CallError.from(
                error,
                cause ->
                    CallError.of(ErrorCode.UNAVAILABLE, "Could not ask for statistics", cause)));
      }
    }
  }

  /** An answer that came to the inbox; one no round waits for is dropped. */
  void answer(NodeEvent.Stats stats) {
    StatsRound round = rounds.get(stats.requestId());
    if (round != null) {
      round.answer(stats);
    }
  }

  /** Ends every round with what has come in, the rest as silent. */
  void finishAll() {
    for (StatsRound round : List.copyOf(rounds.values())) {
      round.finish();
    }
  }
}
