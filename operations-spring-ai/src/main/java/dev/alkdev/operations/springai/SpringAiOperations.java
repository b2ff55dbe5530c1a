package dev.alkdev.operations.springai;

import dev.alkdev.operations.AccessControl;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationHandler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.schema.Schema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.NullNode;

/**
 * Spring AI tools as operations: each {@link ToolCallback} (given as is, by a {@link
 * ToolCallbackProvider}, or found on objects with {@code @Tool} methods) becomes the operation
 * {@code namespace.toolName} of a registry, callable, listed and served like any other.
 *
 * <pre>{@code
 * SpringAiOperations.register(registry, "weather", new WeatherTools()); // @Tool methods
 * registry.execute("weather.forecast", Map.of("city", "Oslo")).join();
 * }</pre>
 *
 * <ul>
 *   <li>Type: MUTATION, not idempotent. A tool is a function a model calls for its effect as much
 *       as for its answer (send, book, write), and Spring AI says nothing of whether it has effects
 *       ({@code ToolMetadata} holds only {@code returnDirect}); a QUERY would tell gateways and
 *       retries that repeating it is safe.
 *   <li>Input schema: the tool definition's, compiled by the registry's schema module with its
 *       guards; one that does not compile (invalid, hostile) fails the registration with an {@link
 *       IllegalArgumentException} naming the tool. Output schema: open.
 *   <li>Handler: blocking, on the registry's executor. The input, validated by the registry, goes
 *       to {@code callback.call(json, toolContext)}, whose tool context holds the caller's {@link
 *       dev.alkdev.operations.Identity} under {@link OperationTools#IDENTITY_KEY} and the call's
 *       {@link OperationContext} under {@link #CONTEXT_KEY} (never empty: Spring AI refuses an
 *       empty one to a {@code @Tool} method that takes a {@code ToolContext}). The text the tool
 *       returns is the result: parsed when it is JSON, else a JSON string.
 *   <li>A tool that throws fails the call with the {@link CallError} in its cause chain (a tool
 *       that itself called an operation), else EXECUTION_ERROR, "the Spring AI tool NAME failed",
 *       with the exception as its local cause, never sent to the caller.
 *   <li>Access: open, or the {@link #accessControl} given, the same for every tool imported.
 * </ul>
 *
 * <p>Registration checks every tool first (names, schemas, ids free), so a bad one registers
 * nothing; it is not atomic against other threads registering the same ids meanwhile.
 */
public final class SpringAiOperations {

  /** The tool context key that holds the {@link OperationContext} of the call running the tool. */
  public static final String CONTEXT_KEY = "dev.alkdev.operations.context";

  private final OperationRegistry registry;
  private final String namespace;
  private final AccessControl accessControl;

  private SpringAiOperations(
      OperationRegistry registry, String namespace, AccessControl accessControl) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.accessControl = Objects.requireNonNull(accessControl, "accessControl");
    // A bad namespace fails here, with the spec's own message, not at the first tool.
    OperationSpec.builder(namespace, "tool").build();
  }

  /** Registers tools into {@code registry} under {@code namespace}, open to every caller. */
  public static SpringAiOperations into(OperationRegistry registry, String namespace) {
    return new SpringAiOperations(registry, namespace, AccessControl.open());
  }

  /** Registers {@code callbacks} as open operations {@code namespace.toolName}. */
  public static List<OperationSpec> register(
      OperationRegistry registry, String namespace, ToolCallback... callbacks) {
    return into(registry, namespace).register(callbacks);
  }

  /** Registers the tools of {@code provider} as open operations {@code namespace.toolName}. */
  public static List<OperationSpec> register(
      OperationRegistry registry, String namespace, ToolCallbackProvider provider) {
    return into(registry, namespace).register(provider);
  }

  /**
   * Registers the {@code @Tool} methods of {@code toolObjects} (through Spring AI's {@link
   * MethodToolCallbackProvider}) as open operations {@code namespace.toolName}.
   */
  public static List<OperationSpec> registerToolObjects(
      OperationRegistry registry, String namespace, Object... toolObjects) {
    return into(registry, namespace).registerToolObjects(toolObjects);
  }

  /** The same, with {@code accessControl} on every operation registered. */
  public SpringAiOperations accessControl(AccessControl accessControl) {
    return new SpringAiOperations(registry, namespace, accessControl);
  }

  /**
   * Registers each callback as the operation {@code namespace.toolName}.
   *
   * @return the specs registered, in the callbacks' order
   * @throws IllegalArgumentException naming the tool, if its name is not a valid operation name,
   *     its input schema does not compile, two tools share a name, or an id is taken
   */
  public List<OperationSpec> register(ToolCallback... callbacks) {
    Objects.requireNonNull(callbacks, "callbacks");
    List<OperationSpec> specs = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (ToolCallback callback : callbacks) {
      OperationSpec spec = spec(Objects.requireNonNull(callback, "callback"));
      if (!ids.add(spec.id()) || registry.getSpec(spec.id()).isPresent()) {
        throw new IllegalArgumentException(
            "Spring AI tool '"
                + callback.getToolDefinition().name()
                + "': the operation id "
                + spec.id()
                + " is taken; give each tool its own name or use another namespace");
      }
      specs.add(spec);
    }
    for (int i = 0; i < specs.size(); i++) {
      registry.register(specs.get(i), handler(callbacks[i]));
    }
    return List.copyOf(specs);
  }

  /** Registers the tools of {@code provider}, as {@link #register(ToolCallback...)} does. */
  public List<OperationSpec> register(ToolCallbackProvider provider) {
    Objects.requireNonNull(provider, "provider");
    return register(provider.getToolCallbacks());
  }

  /**
   * Registers the {@code @Tool} methods of {@code toolObjects}, as {@link
   * #register(ToolCallback...)} does.
   *
   * @throws IllegalArgumentException if Spring AI finds no valid tools on them (its message says
   *     why), or as {@link #register(ToolCallback...)}
   */
  public List<OperationSpec> registerToolObjects(Object... toolObjects) {
    Objects.requireNonNull(toolObjects, "toolObjects");
    return register(MethodToolCallbackProvider.builder().toolObjects(toolObjects).build());
  }

  private OperationSpec spec(ToolCallback callback) {
    ToolDefinition definition = callback.getToolDefinition();
    String name = definition.name();
    Schema input;
    try {
      String schema = definition.inputSchema();
      input = schema == null || schema.isBlank() ? Schema.unknown() : Schema.fromJson(schema);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Spring AI tool '" + name + "': its input schema cannot be used: " + e.getMessage(), e);
    }
    try {
      return OperationSpec.builder(namespace, name)
          .type(OperationType.MUTATION)
          .description(definition.description() == null ? "" : definition.description())
          .inputSchema(input)
          .accessControl(accessControl)
          .build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Spring AI tool '" + name + "' cannot be an operation: " + e.getMessage(), e);
    }
  }

  private static OperationHandler handler(ToolCallback callback) {
    String name = callback.getToolDefinition().name();
    return (input, context) -> {
      String arguments = OperationToolCallback.JSON.writeValueAsString(input);
      ToolContext toolContext =
          new ToolContext(
              Map.of(OperationTools.IDENTITY_KEY, context.identity(), CONTEXT_KEY, context));
      String result;
      try {
        result = callback.call(arguments, toolContext);
      } catch (RuntimeException e) {
        throw CallError.from(
            e, ErrorCode.EXECUTION_ERROR, "The Spring AI tool '" + name + "' failed");
      }
      return result(result);
    };
  }

  /** A tool's text: JSON when it parses as JSON (Spring AI's converters write JSON), else text. */
  private static JsonNode result(String text) {
    if (text == null) {
      return NullNode.getInstance();
    }
    try {
      return OperationToolCallback.JSON.readTree(text);
    } catch (JacksonException e) {
      return JsonNodeFactory.instance.stringNode(text);
    }
  }

  @Override
  public String toString() {
    return "SpringAiOperations[" + namespace + ", " + accessControl + "]";
  }
}
