package dev.alkdev.operations.spring.boot;

import java.util.function.Consumer;
import java.util.function.IntConsumer;

/** Hands a property's value to a builder, so a value the builder refuses names the property. */
final class Settings {
  private Settings() {}

  /** {@code value} to {@code setter} unless it is 0 (the builder's default then applies). */
  static void apply(String property, int value, IntConsumer setter) {
    if (value == 0) {
      return;
    }
    try {
      setter.accept(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(property + " is " + value + ": " + e.getMessage(), e);
    }
  }

  /** {@code value} to {@code setter}. */
  static <T> void apply(String property, T value, Consumer<T> setter) {
    try {
      setter.accept(value);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalStateException(property + " is " + value + ": " + e.getMessage(), e);
    }
  }
}
