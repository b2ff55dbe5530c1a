package dev.alkdev.operations.internal;

import dev.alkdev.operations.OperationContext;
import java.util.Optional;
import java.util.function.Function;

/**
 * What the core's internals may read of an {@link OperationContext} that its API does not show:
 * whether its lazy request id has been drawn. {@code OperationContext} hands over the reader when
 * its class is initialised, which has happened by the time there is a context to read.
 */
public final class ContextAccess {
  private static volatile Function<OperationContext, Optional<String>> drawnRequestId;

  private ContextAccess() {}

  /** Set once, by {@code OperationContext}. */
  public static void setDrawnRequestId(Function<OperationContext, Optional<String>> reader) {
    if (drawnRequestId != null) {
      throw new IllegalStateException("set by OperationContext only");
    }
    drawnRequestId = reader;
  }

  /**
   * The context's request id if it has one already (given, received, or read before), without
   * drawing a lazy one: a draw costs more than the rest of an in-process call.
   */
  public static Optional<String> drawnRequestId(OperationContext context) {
    return drawnRequestId.apply(context);
  }
}
