package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.springai.OperationTools;
import dev.alkdev.operations.springai.SpringAiOperations;
import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The Spring AI side of the starter: {@link #provider} offers the registry's operations as tools,
 * made afresh for each request so operations that load, arrive from other nodes or leave are seen;
 * {@link Importer} registers the application's own Spring AI tools as operations.
 */
final class SpringAiTools {
  private SpringAiTools() {}

  /** The registry's operations that {@code operations.ai}'s subject and scopes may call. */
  static ToolCallbackProvider provider(OperationRegistry registry, OperationsProperties.Ai ai) {
    Identity identity = Identity.of(ai.getSubject(), ai.getScopes().toArray(String[]::new));
    OperationTools.Builder check = builder(registry, ai, identity);
    check.build(); // refuses wrong settings at start-up, naming them, not at the first chat
    return new ToolCallbackProvider() {
      @Override
      public ToolCallback[] getToolCallbacks() {
        return builder(registry, ai, identity).build().getToolCallbacks();
      }

      @Override
      public String toString() {
        return "the operations of " + registry + " as Spring AI tools, for " + identity;
      }
    };
  }

  private static OperationTools.Builder builder(
      OperationRegistry registry, OperationsProperties.Ai ai, Identity identity) {
    try {
      return OperationTools.builder(registry)
          .identity(identity)
          .include(ai.getInclude().toArray(String[]::new))
          .exclude(ai.getExclude().toArray(String[]::new))
          .subscriptionItems(ai.getSubscriptionItems())
          .subscriptionWindow(ai.getSubscriptionWindow())
          .timeout(ai.getTimeout());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("operations.ai: " + e.getMessage(), e);
    }
  }

  /**
   * Registers every {@link ToolCallbackProvider} and {@link ToolCallback} bean of the application
   * (not the starter's own provider) as operations in {@code operations.ai.import-namespace}.
   */
  static final class Importer implements SmartInitializingSingleton {
    private final OperationRegistry registry;
    private final OperationsProperties.Ai ai;
    private final ObjectProvider<ToolCallbackProvider> providers;
    private final ObjectProvider<ToolCallback> callbacks;
    private final ToolCallbackProvider own;

    Importer(
        OperationRegistry registry,
        OperationsProperties.Ai ai,
        ObjectProvider<ToolCallbackProvider> providers,
        ObjectProvider<ToolCallback> callbacks,
        ToolCallbackProvider own) {
      this.registry = registry;
      this.ai = ai;
      this.providers = providers;
      this.callbacks = callbacks;
      this.own = own;
    }

    @Override
    public void afterSingletonsInstantiated() {
      List<ToolCallback> tools = new ArrayList<>();
      providers
          .orderedStream()
          .filter(provider -> provider != own)
          .forEach(provider -> tools.addAll(List.of(provider.getToolCallbacks())));
      callbacks.orderedStream().forEach(tools::add);
      if (tools.isEmpty()) {
        return;
      }
      try {
        SpringAiOperations.register(
            registry, ai.getImportNamespace(), tools.toArray(ToolCallback[]::new));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("operations.ai.import-tools: " + e.getMessage(), e);
      }
    }
  }
}
