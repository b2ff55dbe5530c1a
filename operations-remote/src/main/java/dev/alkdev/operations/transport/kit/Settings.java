package dev.alkdev.operations.transport.kit;

import java.time.Duration;
import java.util.Objects;

/** The checks of a transport's settings, worded the same way everywhere. */
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
}
