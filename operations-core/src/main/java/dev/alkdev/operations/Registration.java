package dev.alkdev.operations;

/** Undoes a registration: a listener, a cancellation action. Removing twice does nothing. */
@FunctionalInterface
public interface Registration {
  void remove();
}
