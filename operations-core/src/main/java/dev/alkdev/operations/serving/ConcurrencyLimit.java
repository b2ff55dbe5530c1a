package dev.alkdev.operations.serving;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * How many calls a server runs at once, in two lanes: unary calls and streams, each with its own
 * capacity, so that streams (which last) can never take the slots unary calls need, and each lane
 * divided into fair shares, so that one caller cannot take a lane. A caller is its identity's
 * subject (scopes do not make a second caller); an anonymous caller is the client its adapter names
 * ({@link CallRequest#client()}), and anonymous callers no adapter tells apart are one caller. Only
 * callers with calls running have an entry, so the table is as large as the callers active now.
 */
final class ConcurrencyLimit {
  /** What a refusal's details name, so adapters can tell a full server from a caller's share. */
  static final String SERVER_FULL = "server";

  static final String CALLER_SHARE = "caller";

  private final int maxCalls;
  private final int maxStreams;
  private final int maxCallsPerCaller;
  private final int maxStreamsPerCaller;
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger streams = new AtomicInteger();
  private final ConcurrentHashMap<String, Counts> callers = new ConcurrentHashMap<>();
  private final LongAdder refusedFull = new LongAdder();
  private final LongAdder refusedShare = new LongAdder();

  ConcurrencyLimit(int maxCalls, int maxStreams, int maxCallsPerCaller, int maxStreamsPerCaller) {
    this.maxCalls = maxCalls;
    this.maxStreams = maxStreams;
    this.maxCallsPerCaller = maxCallsPerCaller;
    this.maxStreamsPerCaller = maxStreamsPerCaller;
  }

  /** What one caller runs now; changed only inside the map's compute, so under its bin lock. */
  private static final class Counts {
    int calls;
    int streams;
  }

  /** A slot taken for one call: what {@link #release} gives back. */
  record Slot(String caller, boolean stream) {}

  /** The key a caller's share is counted under. */
  static String callerKey(Identity identity, Optional<String> client) {
    if (!identity.equals(Identity.anonymous())) {
      return "identity:" + identity.subject();
    }
    return client.map(c -> "client:" + c).orElse("anonymous");
  }

  /**
   * Takes a slot in the lane of a call of {@code identity} from {@code client} ({@code stream}: a
   * SUBSCRIPTION), or fails with RESOURCE_EXHAUSTED (retryable) naming the limit it would break.
   */
  Slot acquire(Identity identity, Optional<String> client, boolean stream) {
    String key = callerKey(identity, client);
    int perCaller = stream ? maxStreamsPerCaller : maxCallsPerCaller;
    callers.compute(
        key,
        (k, counts) -> {
          Counts c = counts != null ? counts : new Counts();
          int running = stream ? c.streams : c.calls;
          if (running >= perCaller) {
            refusedShare.increment();
            throw callerOverShare(identity, client, stream, running, perCaller);
          }
          if (stream) {
            c.streams++;
          } else {
            c.calls++;
          }
          return c;
        });
    AtomicInteger lane = stream ? streams : calls;
    int max = stream ? maxStreams : maxCalls;
    if (lane.incrementAndGet() > max) {
      lane.decrementAndGet();
      releaseCaller(key, stream);
      refusedFull.increment();
      throw serverFull(stream, max);
    }
    return new Slot(key, stream);
  }

  /** Gives back a slot {@link #acquire} took. */
  void release(Slot slot) {
    (slot.stream() ? streams : calls).decrementAndGet();
    releaseCaller(slot.caller(), slot.stream());
  }

  private void releaseCaller(String key, boolean stream) {
    callers.computeIfPresent(
        key,
        (k, c) -> {
          if (stream) {
            c.streams--;
          } else {
            c.calls--;
          }
          return c.calls == 0 && c.streams == 0 ? null : c; // an idle caller leaves no entry
        });
  }

  private static CallError serverFull(boolean stream, int max) {
    String what = stream ? "streams" : "unary calls";
    String limit = stream ? "maxConcurrentStreams" : "maxConcurrentCalls";
    return refusal(
        "The server is running " + max + " " + what + " (" + limit + "); try again later",
        SERVER_FULL,
        limit,
        max);
  }

  private static CallError callerOverShare(
      Identity identity, Optional<String> client, boolean stream, int running, int max) {
    String who;
    if (!identity.equals(Identity.anonymous())) {
      who = "Caller '" + identity.subject() + "' is";
    } else if (client.isPresent()) {
      who = "Anonymous client " + client.get() + " is";
    } else {
      who = "Anonymous callers (one caller for this limit) are";
    }
    String what = stream ? "streams" : "unary calls";
    String limit = stream ? "maxStreamsPerIdentity" : "maxCallsPerIdentity";
    return refusal(
        who
            + " running "
            + running
            + " "
            + what
            + ", the most one caller may ("
            + limit
            + " = "
            + max
            + "); try again later",
        CALLER_SHARE,
        limit,
        max);
  }

  /** RESOURCE_EXHAUSTED, retryable, with {@code details {"limit", "scope", "max"}}. */
  private static CallError refusal(String message, String scope, String limit, int max) {
    ObjectNode details = JsonNodeFactory.instance.objectNode();
    details.put("limit", limit);
    details.put("scope", scope);
    details.put("max", max);
    return CallError.builder(ErrorCode.RESOURCE_EXHAUSTED, message)
        .retryable(true)
        .details(details)
        .build();
  }

  int maxCalls() {
    return maxCalls;
  }

  int maxStreams() {
    return maxStreams;
  }

  int calls() {
    return calls.get();
  }

  int streams() {
    return streams.get();
  }

  /** Callers with a call or stream running now. */
  int activeCallers() {
    return callers.size();
  }

  long refusedServerFull() {
    return refusedFull.sum();
  }

  long refusedCallerShare() {
    return refusedShare.sum();
  }
}
