package dev.alkdev.operations.transport.kit;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.time.Duration;
import java.util.Objects;

/** The checks of a transport's settings and limits, worded the same way everywhere. */
public final class Settings {
  private Settings() {}

  /** {@code value}, if it is above zero. */
  public static Duration positive(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    return value;
  }

  /** {@code value}, if it is above zero. */
  public static int positive(int value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    return value;
  }

  /** A number of reconnection attempts: -1 (forever) or more. */
  public static int reconnects(int attempts) {
    if (attempts < -1) {
      throw new IllegalArgumentException("maxReconnects must be -1 or more, was " + attempts);
    }
    return attempts;
  }

  /**
   * The refusal of a message larger than the transport's limit: RESOURCE_EXHAUSTED, not retryable
   * (the same message is as large next time), naming both sizes.
   */
  public static CallError messageTooLarge(int bytes, int limit) {
    return CallError.builder(
            ErrorCode.RESOURCE_EXHAUSTED,
            "Message of " + bytes + " bytes is larger than the transport's limit of " + limit)
        .retryable(false)
        .build();
  }
}
