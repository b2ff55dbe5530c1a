package dev.alkdev.operations.springai;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One operation as a Spring AI tool. Every failure of the call (see {@link OperationTools}) comes
 * back as text; only a misuse by the application (a tool context holding something other than an
 * {@link Identity} under {@link OperationTools#IDENTITY_KEY}) throws.
 */
final class OperationToolCallback implements ToolCallback {
  static final JsonMapper JSON =
      JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  /**
   * How long past its deadline a call may take to fail with DEADLINE_EXCEEDED before the tool stops
   * waiting; the registry's deadline should always come first.
   */
  private static final Duration GRACE = Duration.ofSeconds(5);

  private final OperationRegistry registry;
  private final String operationId;
  private final ToolDefinition definition;
  private final boolean wrapped;
  private final OperationTools.Settings settings;

  OperationToolCallback(
      OperationRegistry registry,
      OperationSpec spec,
      String toolName,
      OperationTools.Settings settings) {
    this.registry = registry;
    this.operationId = spec.id();
    this.settings = settings;
    ToolInputSchema input = ToolInputSchema.of(spec);
    this.wrapped = input.wrapped();
    this.definition =
        ToolDefinition.builder()
            .name(toolName)
            .description(description(spec, settings))
            .inputSchema(input.json().toString())
            .build();
  }

  private static String description(OperationSpec spec, OperationTools.Settings settings) {
    String text =
        spec.description().isBlank()
            ? "Operation " + spec.id() + " (" + spec.type() + ")."
            : spec.description();
    if (spec.type() != OperationType.SUBSCRIPTION) {
      return text;
    }
    // The model must know it gets a sample of a stream, not the whole of it.
    return text
        + (text.endsWith(".") ? "" : ".")
        + " A stream: the tool returns its first items (at most "
        + settings.subscriptionItems()
        + ", collected for at most "
        + settings.subscriptionWindow().toMillis()
        + " ms) as {\"items\": [...], \"complete\": true|false}; complete is false when the"
        + " stream had more to give.";
  }

  @Override
  public ToolDefinition getToolDefinition() {
    return definition;
  }

  @Override
  public String call(String toolInput) {
    return call(toolInput, null);
  }

  @Override
  public String call(String toolInput, ToolContext toolContext) {
    Identity identity = identity(toolContext);
    // Access first: a caller that may not call the operation learns nothing about its input.
    Optional<OperationSpec> found = registry.getSpec(operationId);
    if (found.isEmpty()) {
      return ToolErrors.text(
          CallError.of(ErrorCode.OPERATION_NOT_FOUND, "Operation not found: " + operationId),
          wrapped);
    }
    OperationSpec spec = found.get();
    try {
      // The registry's execute and subscribe trust their caller; a model's tool call is checked.
      spec.accessControl().check(identity, operationId);
    } catch (CallError denied) {
      return ToolErrors.text(denied, wrapped);
    }
    JsonNode input;
    try {
      input = input(toolInput, spec);
    } catch (JacksonException e) {
      return ToolErrors.malformed(e);
    } catch (CallError e) {
      return ToolErrors.text(e, false);
    }
    OperationContext context =
        OperationContext.builder().identity(identity).timeout(settings.timeout()).build();
    return spec.type() == OperationType.SUBSCRIPTION
        ? collect(input, context)
        : execute(input, context);
  }

  private Identity identity(ToolContext toolContext) {
    if (toolContext == null) {
      return settings.identity();
    }
    Object given = toolContext.getContext().get(OperationTools.IDENTITY_KEY);
    if (given == null) {
      return settings.identity();
    }
    if (given instanceof Identity identity) {
      return identity;
    }
    // The application put it there, not the model: a wrong type is a bug to fail on, loudly.
    throw new IllegalStateException(
        "The tool context's "
            + OperationTools.IDENTITY_KEY
            + " holds a "
            + given.getClass().getName()
            + "; expected a "
            + Identity.class.getName());
  }

  /** The operation's input from the model's arguments: parsed, and unwrapped if need be. */
  private JsonNode input(String toolInput, OperationSpec spec) {
    JsonNode arguments = toolInput == null || toolInput.isBlank() ? null : JSON.readTree(toolInput);
    if (!wrapped) {
      return arguments == null ? spec.noInput() : arguments;
    }
    if (!(arguments instanceof ObjectNode object) || !object.has(ToolInputSchema.PROPERTY)) {
      throw CallError.of(
          ErrorCode.INVALID_INPUT,
          "input is invalid: (root): the arguments must be an object with the property \""
              + ToolInputSchema.PROPERTY
              + "\"");
    }
    return object.get(ToolInputSchema.PROPERTY);
  }

  private String execute(JsonNode input, OperationContext context) {
    CompletableFuture<ResponseEnvelope<JsonNode>> call;
    try {
      call = registry.execute(operationId, input, context);
    } catch (RuntimeException e) {
      return failed(e);
    }
    try {
      ResponseEnvelope<JsonNode> envelope =
          call.get(settings.timeout().plus(GRACE).toNanos(), TimeUnit.NANOSECONDS);
      return text(envelope.data());
    } catch (ExecutionException e) {
      return failed(e.getCause());
    } catch (CancellationException e) {
      return ToolErrors.text(CallError.of(ErrorCode.CANCELLED, "The call was cancelled"), wrapped);
    } catch (TimeoutException e) {
      CallError late = CallError.of(ErrorCode.DEADLINE_EXCEEDED, "The call's deadline has passed");
      context.cancellation().cancel(late);
      return ToolErrors.text(late, wrapped);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      CallError interrupted = CallError.of(ErrorCode.CANCELLED, "The tool call was interrupted");
      context.cancellation().cancel(interrupted);
      return ToolErrors.text(interrupted, wrapped);
    }
  }

  private String collect(JsonNode input, OperationContext context) {
    StreamCollector collector = new StreamCollector(settings.subscriptionItems());
    try {
      registry.subscribe(operationId, input, context).subscribe(collector);
    } catch (RuntimeException e) {
      return failed(e);
    }
    StreamCollector.Result result = collector.await(settings.subscriptionWindow());
    if (result.error() != null && result.items().isEmpty()) {
      return ToolErrors.text(result.error(), wrapped);
    }
    ObjectNode answer = JsonNodeFactory.instance.objectNode();
    answer.putArray("items").addAll(result.items());
    answer.put("complete", result.complete());
    if (result.error() != null) {
      // Items came before the failure: the model gets both.
      answer.put("error", ToolErrors.text(result.error(), wrapped));
    }
    return text(answer);
  }

  private String failed(Throwable failure) {
    return ToolErrors.text(
        CallError.from(failure, ErrorCode.EXECUTION_ERROR, "The call failed"), wrapped);
  }

  private static String text(JsonNode data) {
    return JSON.writeValueAsString(data == null ? NullNode.getInstance() : data);
  }

  @Override
  public String toString() {
    return "OperationToolCallback[" + definition.name() + " -> " + operationId + "]";
  }
}
