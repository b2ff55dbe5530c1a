package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.AccessControl;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.springai.OperationTools;
import dev.alkdev.operations.springai.SpringAiOperations;
import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The Spring AI side of the starter: {@link #provider} offers the registry's operations as tools,
 * made afresh for each request so operations that load later, or arrive and leave with remote
 * nodes, are offered as they are; {@link Importer} registers the application's own Spring AI tools
 * as operations.
 */
final class SpringAiTools {
  private SpringAiTools() {}

  /**
   * The registry's operations that {@code operations.ai}'s subject and scopes may call.
   *
   * @throws IllegalStateException naming the {@code operations.ai} property the bridge refuses
   */
  static ToolCallbackProvider provider(OperationRegistry registry, OperationsProperties.Ai ai) {
    Identity identity = Identity.of(ai.getSubject(), ai.getScopes().toArray(String[]::new));
    builder(registry, ai, identity); // refuses wrong settings now, naming them, not at a chat
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
    OperationTools.Builder builder = OperationTools.builder(registry).identity(identity);
    Settings.apply(
        "operations.ai.include",
        ai.getInclude(),
        include -> builder.include(include.toArray(String[]::new)));
    Settings.apply(
        "operations.ai.exclude",
        ai.getExclude(),
        exclude -> builder.exclude(exclude.toArray(String[]::new)));
    Settings.apply(
        "operations.ai.subscription-items",
        ai.getSubscriptionItems(),
        (Integer items) -> builder.subscriptionItems(items));
    Settings.apply(
        "operations.ai.subscription-window",
        ai.getSubscriptionWindow(),
        builder::subscriptionWindow);
    Settings.apply("operations.ai.timeout", ai.getTimeout(), builder::timeout);
    return builder;
  }

  /**
   * Registers every {@link ToolCallbackProvider} and {@link ToolCallback} bean of the application
   * as operations in {@code operations.ai.import-namespace}, needing {@code
   * operations.ai.import-scopes}. Providers of operations ({@link OperationTools}, the starter's
   * {@code operationTools}) are left out: their tools are operations already.
   */
  static final class Importer implements RegistryFiller {
    private final OperationsProperties.Ai ai;
    private final ObjectProvider<ToolCallbackProvider> providers;
    private final ObjectProvider<ToolCallback> callbacks;

    Importer(
        OperationsProperties.Ai ai,
        ObjectProvider<ToolCallbackProvider> providers,
        ObjectProvider<ToolCallback> callbacks) {
      this.ai = ai;
      this.providers = providers;
      this.callbacks = callbacks;
    }

    @Override
    public void fill(OperationRegistry registry) {
      List<ToolCallback> tools = new ArrayList<>();
      providers
          .orderedStream()
          .filter(provider -> !(provider instanceof OperationTools) && !isOperationTools(provider))
          .forEach(provider -> tools.addAll(List.of(provider.getToolCallbacks())));
      callbacks.orderedStream().forEach(tools::add);
      if (tools.isEmpty()) {
        return;
      }
      AccessControl access =
          ai.getImportScopes().isEmpty()
              ? AccessControl.open()
              : AccessControl.requireScopes(ai.getImportScopes().toArray(String[]::new));
      try {
        SpringAiOperations.into(registry, ai.getImportNamespace())
            .accessControl(access)
            .register(tools.toArray(ToolCallback[]::new));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("operations.ai.import-tools: " + e.getMessage(), e);
      }
    }

    /** The starter's own provider (an anonymous class of {@link SpringAiTools}). */
    private static boolean isOperationTools(ToolCallbackProvider provider) {
      return provider.getClass().getEnclosingClass() == SpringAiTools.class;
    }
  }
}
