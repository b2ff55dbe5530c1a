package dev.alkdev.operations.mcp.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Ends a process and everything it started. Destroying only the direct child leaves grandchildren
 * (npx's node, a shell's children) running, so the tree is listed first: once the parent dies its
 * children are re-parented and can no longer be found through it.
 */
public final class ProcessTrees {
  private ProcessTrees() {}

  /** SIGTERM to the tree, then SIGKILL to whatever still runs after {@code grace}. */
  public static void kill(ProcessHandle root, Duration grace) {
    List<ProcessHandle> tree = new ArrayList<>(root.descendants().collect(Collectors.toList()));
    tree.add(root);
    for (ProcessHandle handle : tree) {
      handle.destroy();
    }
    awaitExit(tree, grace);
    boolean forced = false;
    for (ProcessHandle handle : tree) {
      if (handle.isAlive()) {
        handle.destroyForcibly();
        forced = true;
      }
    }
    if (forced) {
      awaitExit(tree, Duration.ofSeconds(2));
    }
  }

  private static void awaitExit(List<ProcessHandle> tree, Duration timeout) {
    CompletableFuture<?>[] exits =
        tree.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(exits).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // Still running after the wait: the caller forces it.
    }
  }
}
