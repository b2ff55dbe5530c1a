package dev.alkdev.operations.cli.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads on which sources load, so a stuck load never keeps the command alive. */
final class SourceThreads {
  private static final AtomicInteger COUNT = new AtomicInteger();

  static final ExecutorService EXECUTOR =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "ops-source-" + COUNT.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });

  private SourceThreads() {}
}
