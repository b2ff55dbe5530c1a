package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A soak of calls across serving nodes, the same for every transport: {@code total} MUTATION calls
 * of {@link #SPEC}, each {@code {"n", "token"}}, at most {@code inFlight} at once, to nodes whose
 * handler ({@link #node(int)}) answers with its input. {@link #assertClean()} then checks that none
 * was lost, none ran twice or on two nodes, none was answered with another call's result, and every
 * node took a share; it returns how the calls spread.
 *
 * <pre>{@code
 * CallSoak soak = CallSoak.of(100_000, 256, 2);
 * registryA.register(CallSoak.SPEC, soak.node(0));
 * registryB.register(CallSoak.SPEC, soak.node(1));
 * ... serve both, connect a caller ...
 * soak.run((n, input, options) -> calls.call(CallSoak.OPERATION, input, options));
 * soak.assertClean();
 * }</pre>
 */
public final class CallSoak {
  /** The operation every node serves. */
  public static final String OPERATION = "soak.record";

  public static final OperationSpec SPEC =
      OperationSpec.builder("soak", "record").type(OperationType.MUTATION).build();

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final int total;
  private final int inFlight;
  private final AtomicIntegerArray[] ranOn;
  private final AtomicIntegerArray answers;
  private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
  private long millis;

  private CallSoak(int total, int inFlight, int nodes) {
    this.total = total;
    this.inFlight = inFlight;
    this.ranOn = new AtomicIntegerArray[nodes];
    for (int i = 0; i < nodes; i++) {
      ranOn[i] = new AtomicIntegerArray(total);
    }
    this.answers = new AtomicIntegerArray(total);
  }

  public static CallSoak of(int total, int inFlight, int nodes) {
    return new CallSoak(total, inFlight, nodes);
  }

  /** Makes call {@code n} with its input and options (a 30 s deadline). */
  @FunctionalInterface
  public interface Caller {
    CompletableFuture<ResponseEnvelope<JsonNode>> call(int n, JsonNode input, CallOptions options);
  }

  /** The handler of node {@code index}: counts what it ran, answers with its input. */
  public Handler node(int index) {
    AtomicIntegerArray ran = ranOn[index];
    return Handler.blocking(
        (in, ctx) -> {
          ran.incrementAndGet(in.get("n").asInt());
          return in;
        });
  }

  /** Makes every call, at most {@code inFlight} at once, and waits until all have ended. */
  public void run(Caller caller) throws InterruptedException {
    Semaphore permits = new Semaphore(inFlight);
    long start = System.nanoTime();
    for (int i = 0; i < total; i++) {
      if (!permits.tryAcquire(10, TimeUnit.SECONDS)) {
        throw new AssertionError("no call ended within 10 s at call " + i);
      }
      int n = i;
      String token = Integer.toHexString(n * 7919 + 13);
      JsonNode input = JSON.createObjectNode().put("n", n).put("token", token);
      caller
          .call(n, input, CallOptions.defaults().withTimeout(Duration.ofSeconds(30)))
          .whenComplete(
              (envelope, error) -> {
                try {
                  if (error != null) {
                    problems.add("call " + n + " failed: " + error);
                  } else if (envelope.data().get("n").asInt() != n
                      || !envelope.data().get("token").asString().equals(token)) {
                    problems.add("call " + n + " got the answer " + envelope.data());
                  } else {
                    answers.incrementAndGet(n);
                  }
                } finally {
                  permits.release();
                }
              });
    }
    assertThat(permits.tryAcquire(inFlight, 30, TimeUnit.SECONDS)).as("every call ended").isTrue();
    millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  /**
   * Checks what {@link #run} did, and returns per call the node that ran it.
   *
   * @return {@code node[n]}: the index of the node that ran call n
   */
  public int[] assertClean() {
    assertThat(problems).as("failed or mismatched calls").isEmpty();
    int lost = 0;
    int notOnExactlyOneNode = 0;
    int[] node = new int[total];
    int[] shares = new int[ranOn.length];
    for (int n = 0; n < total; n++) {
      if (answers.get(n) != 1) {
        lost++;
      }
      int runs = 0;
      for (int i = 0; i < ranOn.length; i++) {
        if (ranOn[i].get(n) > 0) {
          runs += ranOn[i].get(n);
          node[n] = i;
          shares[i]++;
        }
      }
      if (runs != 1) {
        notOnExactlyOneNode++;
      }
    }
    assertThat(lost).as("calls not answered exactly once").isZero();
    assertThat(notOnExactlyOneNode).as("calls not run on exactly one node once").isZero();
    assertThat(shares).as("every node took a share").doesNotContain(0);
    return node;
  }

  /** Calls a second, during {@link #run}. */
  public long callsPerSecond() {
    return total * 1000L / Math.max(1, millis);
  }

  public long millis() {
    return millis;
  }
}
