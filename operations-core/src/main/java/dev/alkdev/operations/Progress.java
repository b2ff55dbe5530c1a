package dev.alkdev.operations;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * How far a running call has got: what an MCP server's {@code notifications/progress} says, and
 * what a caller can hear by putting a listener in the call's context ({@link #LISTENER}). Sources
 * that learn of progress (the MCP client) tell the listener of the call it belongs to.
 *
 * <pre>{@code
 * OperationContext context =
 *     OperationContext.builder()
 *         .attribute(Progress.LISTENER, p -> System.err.println(p))
 *         .build();
 * registry.execute("files.index", input, context);
 * }</pre>
 *
 * @param progress how far along; increases from one report to the next
 * @param total the total, when the source knows it
 * @param message a note for a person, when one is sent
 */
public record Progress(double progress, Optional<Double> total, Optional<String> message) {
  /**
   * The listener of a call's progress, in its context. It runs on the source's threads: it must not
   * block, and an exception it throws is logged by the source and goes no further.
   */
  public static final ContextKey<Consumer<Progress>> LISTENER =
      ContextKey.of("dev.alkdev.operations.progress");

  public Progress {
    Objects.requireNonNull(total, "total");
    Objects.requireNonNull(message, "message");
  }

  /** "3/10: indexing" or "3" when nothing more is known: a line for a person. */
  @Override
  public String toString() {
    String amount = number(progress) + total.map(t -> "/" + number(t)).orElse("");
    return message.map(m -> amount + ": " + m).orElse(amount);
  }

  private static String number(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value)
        : Double.toString(value);
  }
}
