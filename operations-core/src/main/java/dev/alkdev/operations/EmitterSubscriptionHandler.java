package dev.alkdev.operations;

import tools.jackson.databind.JsonNode;

/**
 * Runs a SUBSCRIPTION as plain blocking code on its own (virtual) thread: it emits items one by
 * one, and the stream ends when it returns (or fails when it throws). {@link Emitter#emit} blocks
 * while the subscriber has no demand, so a slow consumer slows the producer instead of filling
 * memory. When the subscriber cancels, {@code emit} throws and the thread is interrupted, so a
 * {@code finally} block releases what the handler holds.
 */
@FunctionalInterface
public interface EmitterSubscriptionHandler {
  void run(JsonNode input, OperationContext context, Emitter emitter) throws Exception;

  /** Where an {@link EmitterSubscriptionHandler} puts its items. */
  interface Emitter {
    /**
     * Sends one item, waiting for demand.
     *
     * @throws CallError with code CANCELLED once the subscriber has cancelled
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void emit(Object item) throws InterruptedException;

    /** Whether the subscriber has cancelled (or the call's deadline passed). */
    boolean isCancelled();
  }
}
