package dev.alkdev.operations.typed;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationCaller;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.Json;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/**
 * One method of a typed client, bound to its operation: where its input and context sit among the
 * arguments, how the call is made (blocking, a future, a stream) and what the caller gets (the data
 * as a Java type, the envelope, nothing). Worked out once, when the client is built, so a call does
 * no reflection.
 */
final class ClientMethod {
  /** How the method returns. */
  enum Mode {
    BLOCKING,
    ASYNC,
    STREAM
  }

  /** What the method returns: the data, the envelope around it, or nothing. */
  enum Shape {
    VALUE,
    ENVELOPE,
    NOTHING
  }

  final String operationId;
  final Method method;
  final Mode mode;
  final Shape shape;

  /** The data's Java type (the {@code R} of {@code R}, a future, an envelope or a stream). */
  final JavaType dataType;

  private final int contextIndex;
  private final int[] inputIndexes;
  private final String[] inputNames; // when the input is gathered from several parameters
  private final ClientDefaults defaults;
  private final OperationCaller caller;

  private ClientMethod(
      String operationId,
      Method method,
      Mode mode,
      Shape shape,
      JavaType dataType,
      int contextIndex,
      int[] inputIndexes,
      String[] inputNames,
      ClientDefaults defaults,
      OperationCaller caller) {
    this.operationId = operationId;
    this.method = method;
    this.mode = mode;
    this.shape = shape;
    this.dataType = dataType;
    this.contextIndex = contextIndex;
    this.inputIndexes = inputIndexes;
    this.inputNames = inputNames;
    this.defaults = defaults;
    this.caller = caller;
  }

  /**
   * Binds {@code method} to {@code operationId}, adding to {@code problems} whatever does not fit
   * (its signature, the operation's type, its schemas); returns the binding even then, so every
   * problem of every method is found in one pass.
   */
  static ClientMethod bind(
      Method method,
      String operationId,
      Optional<OperationSpec> spec,
      ClientDefaults defaults,
      OperationCaller caller,
      List<String> problems) {
    String where = operationId + " (" + describe(method) + ")";
    Parameter[] parameters = method.getParameters();
    int contextIndex = -1;
    List<Integer> inputs = new ArrayList<>();
    for (int i = 0; i < parameters.length; i++) {
      if (parameters[i].getType() == OperationContext.class) {
        if (contextIndex >= 0) {
          problems.add(where + ": takes the OperationContext twice");
        }
        contextIndex = i;
      } else {
        inputs.add(i);
      }
    }
    int[] inputIndexes = inputs.stream().mapToInt(Integer::intValue).toArray();
    String[] inputNames = null;
    if (inputIndexes.length > 1) {
      inputNames = new String[inputIndexes.length];
      for (int i = 0; i < inputIndexes.length; i++) {
        Parameter parameter = parameters[inputIndexes[i]];
        if (!parameter.isNamePresent()) {
          problems.add(
              where
                  + ": takes several input parameters but their names were not compiled in;"
                  + " compile with javac -parameters, or take one record");
        }
        inputNames[i] = parameter.getName();
      }
    }

    JavaType returns = Json.mapper().constructType(method.getGenericReturnType());
    Mode mode = Mode.BLOCKING;
    JavaType result = returns;
    Class<?> raw = returns.getRawClass();
    if (raw == Flow.Publisher.class) {
      mode = Mode.STREAM;
      result = parameter(returns, Flow.Publisher.class);
    } else if (raw == CompletableFuture.class || raw == CompletionStage.class) {
      mode = Mode.ASYNC;
      result = parameter(returns, CompletionStage.class);
    } else if (Flow.Publisher.class.isAssignableFrom(raw)
        || CompletionStage.class.isAssignableFrom(raw)) {
      // The proxy makes the publisher or the future: it cannot be a class of the caller's choice.
      problems.add(
          where
              + ": returns "
              + raw.getSimpleName()
              + "; declare Flow.Publisher<R>, CompletableFuture<R> or CompletionStage<R>");
    }
    Shape shape = Shape.VALUE;
    JavaType data = result;
    if (result.getRawClass() == ResponseEnvelope.class) {
      shape = Shape.ENVELOPE;
      data = result.containedTypeOrUnknown(0);
    } else if (result.getRawClass() == void.class || result.getRawClass() == Void.class) {
      shape = Shape.NOTHING;
      if (mode == Mode.STREAM) {
        problems.add(where + ": a stream of Void carries nothing; name the item type");
      }
    }

    if (spec.isEmpty()) {
      problems.add(where + ": no such operation (the caller, " + caller + ", has no spec of it)");
    } else {
      checkAgainst(
          spec.get(), mode, shape, data, method, inputIndexes, inputNames, where, problems);
    }
    return new ClientMethod(
        operationId,
        method,
        mode,
        shape,
        data,
        contextIndex,
        inputIndexes,
        inputNames,
        defaults,
        caller);
  }

  private static void checkAgainst(
      OperationSpec spec,
      Mode mode,
      Shape shape,
      JavaType data,
      Method method,
      int[] inputIndexes,
      String[] inputNames,
      String where,
      List<String> problems) {
    boolean streams = spec.type() == OperationType.SUBSCRIPTION;
    if (streams && mode != Mode.STREAM) {
      problems.add(where + ": the operation is a SUBSCRIPTION; return a Flow.Publisher");
    } else if (!streams && mode == Mode.STREAM) {
      problems.add(
          where
              + ": the operation is a "
              + spec.type()
              + ", not a SUBSCRIPTION; return its result, a CompletableFuture or a"
              + " ResponseEnvelope");
    }
    JsonNode input = spec.inputSchema().isUnknown() ? null : spec.inputSchema().json();
    if (input != null) {
      java.lang.reflect.Type[] types = method.getGenericParameterTypes();
      if (inputIndexes.length == 0) {
        JsonNode required = input.get("required");
        if (required != null && required.isArray() && !required.isEmpty()) {
          problems.add(
              where + ": takes no input, but the operation requires " + required.toString());
        }
      } else if (inputIndexes.length == 1) {
        ContractCheck.check(
            Json.mapper().constructType(types[inputIndexes[0]]),
            input,
            ContractCheck.Direction.INPUT,
            where + ": input",
            problems);
      } else {
        ContractCheck.checkParameters(
            inputNames, inputIndexes, types, input, where + ": input", problems);
      }
    }
    if (shape != Shape.NOTHING && !spec.outputSchema().isUnknown()) {
      ContractCheck.check(
          data,
          spec.outputSchema().json(),
          ContractCheck.Direction.OUTPUT,
          where + (streams ? ": item" : ": output"),
          problems);
    }
  }

  /** Makes the call {@code args} describe. */
  Object invoke(Object[] args) {
    OperationContext context = contextOf(args);
    Object input = inputOf(args);
    switch (mode) {
      case STREAM:
        return new MappedPublisher<>(caller.subscribe(operationId, input, context), this::result);
      case ASYNC:
        {
          CompletableFuture<ResponseEnvelope<JsonNode>> call =
              caller.call(operationId, input, context);
          CompletableFuture<Object> result = call.thenApply(this::result);
          // Cancelling what the caller holds cancels the call itself (and tells its server).
          result.whenComplete(
              (value, failure) -> {
                if (failure instanceof CancellationException) {
                  call.cancel(true);
                }
              });
          return result;
        }
      default:
        return result(await(caller.call(operationId, input, context)));
    }
  }

  private ResponseEnvelope<JsonNode> await(CompletableFuture<ResponseEnvelope<JsonNode>> call) {
    try {
      return call.get();
    } catch (ExecutionException e) {
      throw CallError.from(e, ErrorCode.EXECUTION_ERROR, operationId + " failed");
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      throw CallError.of(
          ErrorCode.CANCELLED, "Interrupted while waiting for " + operationId + "; cancelled it");
    } catch (CancellationException e) {
      throw CallError.of(ErrorCode.CANCELLED, operationId + " was cancelled", e);
    }
  }

  /** The context of this call: a child of the one passed, or a fresh one with the defaults. */
  private OperationContext contextOf(Object[] args) {
    if (contextIndex < 0) {
      return defaults.freshContext();
    }
    Object given = args[contextIndex];
    if (given == null) {
      throw new NullPointerException(
          "context of " + describe(method) + " (use the overload without one, or pass a context)");
    }
    return defaults.childOf((OperationContext) given);
  }

  private Object inputOf(Object[] args) {
    if (inputIndexes.length == 0) {
      return Json.nodes().objectNode();
    }
    if (inputNames == null) {
      Object input = args[inputIndexes[0]];
      return input != null ? input : NullNode.getInstance();
    }
    Map<String, Object> gathered = new LinkedHashMap<>();
    for (int i = 0; i < inputIndexes.length; i++) {
      Object value = args[inputIndexes[i]];
      if (value != null) { // an absent optional parameter is left out, not sent as null
        gathered.put(inputNames[i], value);
      }
    }
    return gathered;
  }

  private Object result(ResponseEnvelope<JsonNode> envelope) {
    return switch (shape) {
      case NOTHING -> null;
      case ENVELOPE ->
          dataType.getRawClass() == JsonNode.class || dataType.getRawClass() == Object.class
              ? envelope
              : new ResponseEnvelope<>(data(envelope), envelope.meta());
      case VALUE -> data(envelope);
    };
  }

  private Object data(ResponseEnvelope<?> envelope) {
    Object data = envelope.data();
    Class<?> raw = dataType.getRawClass();
    if (dataType.containedTypeCount() == 0 && raw.isInstance(data)) {
      return data; // a local handler's record, or the JSON itself
    }
    if (data == null || data instanceof NullNode) {
      if (raw.isPrimitive()) {
        throw CallError.of(
            ErrorCode.PROTOCOL_ERROR,
            "The reply of " + operationId + " is null, which " + raw.getName() + " cannot hold");
      }
      return raw == Optional.class ? Optional.empty() : null;
    }
    try {
      return Json.mapper().convertValue(data, dataType);
    } catch (IllegalArgumentException | JacksonException e) {
      String message = e instanceof JacksonException j ? j.getOriginalMessage() : e.getMessage();
      throw CallError.of(
          ErrorCode.PROTOCOL_ERROR,
          "The reply of "
              + operationId
              + " does not fit "
              + ContractCheck.describe(dataType)
              + ": "
              + message,
          e);
    }
  }

  private static JavaType parameter(JavaType type, Class<?> of) {
    JavaType[] found = type.findTypeParameters(of);
    return found != null && found.length == 1
        ? found[0]
        : Json.mapper().constructType(Object.class);
  }

  static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
  }
}
