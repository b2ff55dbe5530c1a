package dev.alkdev.operations.annotation;

import dev.alkdev.operations.AccessControl;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.EmitterSubscriptionHandler;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.schema.Schema;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;

/**
 * Turns the {@link Operation}-annotated public methods of an object into operations, with schemas
 * derived from their Java types.
 *
 * <p>A method takes at most one input parameter, whose type is the operation's input (a record is
 * the usual choice; its schema comes from {@link Schema#fromType}); it may also take the {@link
 * OperationContext}, and a SUBSCRIPTION may take an {@link EmitterSubscriptionHandler.Emitter}. The
 * return type decides the handler and the output schema:
 *
 * <ul>
 *   <li>{@code T}: a blocking QUERY or MUTATION whose output schema is that of {@code T};
 *   <li>{@code CompletionStage<T>}: the same, run without blocking;
 *   <li>{@code Flow.Publisher<T>}: a SUBSCRIPTION whose items have the schema of {@code T};
 *   <li>{@code void} with an {@code Emitter} parameter: a SUBSCRIPTION written as blocking code;
 *   <li>{@code void}, {@code Object}, {@code JsonNode} or a {@code ResponseEnvelope}: an unknown
 *       output schema.
 * </ul>
 *
 * <pre>{@code
 * @Namespace("greetings")
 * class Greeter {
 *   record Hello(String name) {}
 *   record Reply(String text) {}
 *
 *   @Operation(description = "Says hello")
 *   public Reply hello(Hello input) { return new Reply("Hello, " + input.name()); }
 * }
 * registry.registerAll(AnnotatedOperations.of(new Greeter()));
 * }</pre>
 */
public final class AnnotatedOperations {
  private AnnotatedOperations() {}

  /**
   * The operations of {@code target}'s annotated public methods, sorted by id.
   *
   * @throws IllegalArgumentException if a method's signature or names do not fit, or there is no
   *     annotated method
   */
  public static List<OperationDefinition> of(Object target) {
    Objects.requireNonNull(target, "target");
    Class<?> type = target.getClass();
    List<OperationDefinition> definitions = new ArrayList<>();
    Method[] methods = type.getMethods();
    Arrays.sort(methods, Comparator.comparing(Method::getName));
    for (Method method : methods) {
      Operation annotation = method.getAnnotation(Operation.class);
      if (annotation != null) {
        definitions.add(define(target, method, annotation));
      }
    }
    if (definitions.isEmpty()) {
      throw new IllegalArgumentException(
          type.getName() + " has no public method annotated with @Operation");
    }
    definitions.sort(Comparator.comparing(OperationDefinition::id));
    return List.copyOf(definitions);
  }

  private static OperationDefinition define(Object target, Method method, Operation annotation) {
    String where = method.getDeclaringClass().getSimpleName() + "." + method.getName();
    if (Modifier.isStatic(method.getModifiers())) {
      throw new IllegalArgumentException(where + ": @Operation methods must not be static");
    }
    if (!method.trySetAccessible()) {
      throw new IllegalArgumentException(
          where
              + " is not accessible: make the class public, or open its package to"
              + " dev.alkdev.operations.core");
    }
    String namespace = namespaceOf(method, annotation, where);
    String name = annotation.name().isEmpty() ? method.getName() : annotation.name();

    Type[] parameters = method.getGenericParameterTypes();
    int inputIndex = -1;
    int contextIndex = -1;
    int emitterIndex = -1;
    for (int i = 0; i < parameters.length; i++) {
      Class<?> raw = method.getParameterTypes()[i];
      if (raw == OperationContext.class) {
        contextIndex = i;
      } else if (raw == EmitterSubscriptionHandler.Emitter.class) {
        emitterIndex = i;
      } else if (inputIndex < 0) {
        inputIndex = i;
      } else {
        throw new IllegalArgumentException(
            where
                + " takes more than one input parameter; gather them in one record (the"
                + " operation's input object)");
      }
    }
    Invoker invoker =
        new Invoker(
            target,
            method,
            where,
            parameters.length,
            inputIndex,
            inputIndex < 0 ? null : Json.mapper().constructType(parameters[inputIndex]),
            contextIndex,
            emitterIndex);

    Type returns = method.getGenericReturnType();
    Class<?> rawReturn = method.getReturnType();
    OperationType type = annotation.type();
    Handler handler;
    Type outputType;
    if (emitterIndex >= 0) {
      if (rawReturn != void.class) {
        throw new IllegalArgumentException(where + " takes an Emitter, so it must return void");
      }
      type = OperationType.SUBSCRIPTION;
      handler = Handler.emitter(invoker::runEmitter);
      outputType = null;
    } else if (Flow.Publisher.class.isAssignableFrom(rawReturn)) {
      type = OperationType.SUBSCRIPTION;
      handler = Handler.publisher(invoker::subscribe);
      outputType = typeArgument(returns);
    } else if (CompletionStage.class.isAssignableFrom(rawReturn)) {
      handler = Handler.async(invoker::callAsync);
      outputType = typeArgument(returns);
    } else {
      handler = Handler.blocking(invoker::call);
      outputType = returns;
    }
    boolean streams = type == OperationType.SUBSCRIPTION;
    if (streams && annotation.type() == OperationType.MUTATION) {
      throw new IllegalArgumentException(
          where + " streams its results, so it cannot be a MUTATION");
    }
    if (!streams && annotation.type() == OperationType.SUBSCRIPTION) {
      throw new IllegalArgumentException(
          where
              + " is declared a SUBSCRIPTION but neither returns a Flow.Publisher nor takes an"
              + " Emitter");
    }

    OperationSpec spec =
        OperationSpec.builder(namespace, name)
            .type(type)
            .version(annotation.version())
            .description(annotation.description())
            .inputSchema(inputIndex < 0 ? Schema.unknown() : schemaOf(parameters[inputIndex]))
            .outputSchema(schemaOf(outputType))
            .accessControl(AccessControl.requireScopes(annotation.scopes()))
            .build();
    return new OperationDefinition(spec, handler);
  }

  private static String namespaceOf(Method method, Operation annotation, String where) {
    if (!annotation.namespace().isEmpty()) {
      return annotation.namespace();
    }
    Namespace namespace = method.getDeclaringClass().getAnnotation(Namespace.class);
    if (namespace == null) {
      throw new IllegalArgumentException(
          where
              + " has no namespace: set @Operation(namespace = ...) or annotate the class with"
              + " @Namespace");
    }
    return namespace.value();
  }

  /** The schema of a Java type, or unknown where the type says nothing (Object, JsonNode, ...). */
  private static Schema schemaOf(Type type) {
    if (type == null
        || type == void.class
        || type == Void.class
        || type == Object.class
        || type instanceof WildcardType
        || type instanceof java.lang.reflect.TypeVariable) {
      return Schema.unknown();
    }
    Class<?> raw = Json.mapper().constructType(type).getRawClass();
    if (JsonNode.class.isAssignableFrom(raw) || ResponseEnvelope.class.isAssignableFrom(raw)) {
      return Schema.unknown();
    }
    return Schema.fromType(type);
  }

  private static Type typeArgument(Type type) {
    if (type instanceof ParameterizedType parameterized) {
      Type argument = parameterized.getActualTypeArguments()[0];
      return argument instanceof WildcardType wildcard ? wildcard.getUpperBounds()[0] : argument;
    }
    return null;
  }

  /** Calls the method with its arguments taken from the input and the context. */
  private record Invoker(
      Object target,
      Method method,
      String where,
      int arity,
      int inputIndex,
      JavaType inputType,
      int contextIndex,
      int emitterIndex) {

    Object call(JsonNode input, OperationContext context) throws Exception {
      return invoke(input, context, null);
    }

    java.util.concurrent.CompletionStage<?> callAsync(JsonNode input, OperationContext context) {
      try {
        return (CompletionStage<?>) invoke(input, context, null);
      } catch (Exception e) {
        return java.util.concurrent.CompletableFuture.failedFuture(e);
      }
    }

    Flow.Publisher<?> subscribe(JsonNode input, OperationContext context) throws Exception {
      return (Flow.Publisher<?>) invoke(input, context, null);
    }

    void runEmitter(
        JsonNode input, OperationContext context, EmitterSubscriptionHandler.Emitter emitter)
        throws Exception {
      invoke(input, context, emitter);
    }

    private Object invoke(
        JsonNode input, OperationContext context, EmitterSubscriptionHandler.Emitter emitter)
        throws Exception {
      Object[] args = new Object[arity];
      if (inputIndex >= 0) {
        try {
          args[inputIndex] = Json.mapper().treeToValue(input, inputType);
        } catch (JacksonException | IllegalArgumentException e) {
          throw CallError.of(
              ErrorCode.INVALID_INPUT,
              "Input does not fit "
                  + inputType.getRawClass().getSimpleName()
                  + " of "
                  + where
                  + ": "
                  + (e instanceof JacksonException j ? j.getOriginalMessage() : e.getMessage()),
              e);
        }
      }
      if (contextIndex >= 0) {
        args[contextIndex] = context;
      }
      if (emitterIndex >= 0) {
        args[emitterIndex] = emitter;
      }
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof Exception exception) {
          throw exception;
        }
        throw (Error) cause;
      }
    }
  }
}
