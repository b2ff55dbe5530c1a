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
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;

/**
 * Turns the {@link Operation}-annotated public methods of an object into operations, with schemas
 * derived from their Java types.
 *
 * <p>A method takes at most one input parameter, whose type is the operation's input: a record is
 * the usual choice (its schema comes from {@link Schema#fromType}); a {@link JsonNode} takes the
 * input as it is, with an unknown schema. Besides it, a method may take the call's {@link
 * OperationContext}, and a SUBSCRIPTION may take an {@link EmitterSubscriptionHandler.Emitter}, in
 * any order. The return type decides the handler and the output schema:
 *
 * <ul>
 *   <li>{@code T}: a QUERY or MUTATION run on a handler thread (it may block); output schema of
 *       {@code T};
 *   <li>{@code CompletionStage<T>} (or {@code CompletableFuture<T>}): a QUERY or MUTATION called on
 *       the caller's thread, which must not block;
 *   <li>{@code Flow.Publisher<T>}: a SUBSCRIPTION whose items have the schema of {@code T};
 *   <li>{@code void} with an {@code Emitter} parameter: a SUBSCRIPTION written as blocking code;
 *   <li>{@code void}, {@code Object}, {@code JsonNode}, a {@link ResponseEnvelope} or a type
 *       variable: an unknown output schema.
 * </ul>
 *
 * <p>The input is converted from JSON by Jackson after it has been validated against the input
 * schema; a value Jackson still cannot convert fails the call with INVALID_INPUT. An exception the
 * method throws, checked or not, fails the call with EXECUTION_ERROR and that exception as its
 * cause; a {@link CallError} passes through as it is.
 *
 * <pre>{@code
 * @Namespace("greetings")
 * public class Greeter {
 *   public record Hello(String name) {}
 *   public record Reply(String text) {}
 *
 *   @Operation(description = "Says hello")
 *   public Reply hello(Hello input) { return new Reply("Hello, " + input.name()); }
 * }
 * registry.registerAll(AnnotatedOperations.of(new Greeter()));
 * }</pre>
 *
 * <p>Under the module system, the package of the annotated class must be open (or exported) to
 * {@code dev.alkdev.operations.core} unless the class and its methods are public.
 */
public final class AnnotatedOperations {
  private AnnotatedOperations() {}

  /**
   * The operations of {@code target}'s annotated public methods, sorted by id.
   *
   * @throws IllegalArgumentException naming the method, if a method's signature, names or types do
   *     not fit, if two methods define the same id, or if there is no annotated method
   */
  public static List<OperationDefinition> of(Object target) {
    Objects.requireNonNull(target, "target");
    return define(target.getClass(), target, false);
  }

  /**
   * The operations of {@code contract}'s annotated methods, run by {@code implementation}: the same
   * rules as {@link #of}, with the methods, their annotations and the {@link Namespace} read from
   * the contract (an interface, usually) rather than from the implementation's class. Methods of
   * the contract without {@link Operation} (the default overloads of generated interfaces, say) are
   * not operations. The same interface gives typed clients ({@code
   * dev.alkdev.operations.typed.TypedClient}), so a team defines a contract once and serves and
   * calls it on every transport.
   *
   * @throws IllegalArgumentException as {@link #of}, or if {@code implementation} is not a {@code
   *     contract}
   */
  public static <T> List<OperationDefinition> implement(Class<T> contract, T implementation) {
    Objects.requireNonNull(contract, "contract");
    Objects.requireNonNull(implementation, "implementation");
    if (!contract.isInstance(implementation)) {
      throw new IllegalArgumentException(
          implementation.getClass().getName() + " does not implement " + contract.getName());
    }
    return define(contract, implementation, false);
  }

  /**
   * The specs {@link #implement} would register for {@code contract}, without an implementation:
   * what a typed client over a caller that knows no specs (a bare call protocol client) checks its
   * interface against.
   *
   * @throws IllegalArgumentException as {@link #of}
   */
  public static List<OperationSpec> specs(Class<?> contract) {
    Objects.requireNonNull(contract, "contract");
    return define(contract, null, false).stream().map(OperationDefinition::spec).toList();
  }

  /**
   * Like {@link #of}, but each schema is derived from its Java type and compiled on its first use
   * ({@link Schema#deferred}), not now: for programs that must start fast and may never call most
   * of their operations (the {@code ops} command's demo). Signatures, names and ids are still
   * checked now; a type whose schema cannot be derived fails at its first use instead, with the
   * message {@link #of} would have thrown.
   */
  public static List<OperationDefinition> deferred(Object target) {
    Objects.requireNonNull(target, "target");
    return define(target.getClass(), target, true);
  }

  /**
   * The operations of {@code type}'s annotated methods, run on {@code target} (null: specs only,
   * the handlers are never called).
   */
  private static List<OperationDefinition> define(
      Class<?> type, Object target, boolean deferSchemas) {
    rejectNonPublicAnnotatedMethods(type);
    Method[] methods = type.getMethods();
    // Stable order, so the first of two clashing methods is always the same one.
    Arrays.sort(methods, Comparator.comparing(Method::getName).thenComparing(Method::toString));
    List<OperationDefinition> definitions = new ArrayList<>();
    Map<String, String> definedBy = new HashMap<>();
    for (Method method : methods) {
      Operation annotation = method.getAnnotation(Operation.class);
      // A bridge method carries its target's annotations; the target itself is defined instead.
      if (annotation == null || method.isBridge() || method.isSynthetic()) {
        continue;
      }
      OperationDefinition definition = define(type, target, method, annotation, deferSchemas);
      String clash = definedBy.putIfAbsent(definition.id(), describe(method));
      if (clash != null) {
        throw new IllegalArgumentException(
            describe(method)
                + " and "
                + clash
                + " both define operation "
                + definition.id()
                + "; give one of them another name with @Operation(name = ...)");
      }
      definitions.add(definition);
    }
    if (definitions.isEmpty()) {
      throw new IllegalArgumentException(
          type.getName() + " has no public method annotated with @Operation");
    }
    definitions.sort(Comparator.comparing(OperationDefinition::id));
    return List.copyOf(definitions);
  }

  /** An annotated method that is not public would be skipped without a word; say so instead. */
  private static void rejectNonPublicAnnotatedMethods(Class<?> type) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method method : c.getDeclaredMethods()) {
        if (method.isAnnotationPresent(Operation.class)
            && !Modifier.isPublic(method.getModifiers())
            && !method.isSynthetic()) {
          throw new IllegalArgumentException(
              describe(method) + ": @Operation methods must be public");
        }
      }
    }
  }

  private static OperationDefinition define(
      Class<?> declaring,
      Object target,
      Method method,
      Operation annotation,
      boolean deferSchemas) {
    String where = describe(method);
    if (Modifier.isStatic(method.getModifiers())) {
      throw new IllegalArgumentException(
          where + ": @Operation methods must not be static (operations run on the object given)");
    }
    Parameters parameters = Parameters.of(method, where);
    OperationType declared = annotation.type();
    Class<?> rawReturn = method.getReturnType();
    Type returns = method.getGenericReturnType();

    String namespace = namespaceOf(declaring, annotation, where);
    String name = annotation.name().isEmpty() ? method.getName() : annotation.name();
    Invoker invoker =
        new Invoker(
            target, method, namespace + "." + name, parameters, inputJavaType(method, parameters));
    OperationType type;
    Handler handler;
    Type outputType;
    if (parameters.emitter() >= 0) {
      if (rawReturn != void.class) {
        throw new IllegalArgumentException(
            where
                + " takes an Emitter, so it must return void (it emits its items instead),"
                + " not "
                + returns.getTypeName());
      }
      type = requireStreaming(declared, where, "takes an Emitter");
      handler = Handler.emitter(invoker::runEmitter);
      outputType = null;
    } else if (Flow.Publisher.class.isAssignableFrom(rawReturn)) {
      type = requireStreaming(declared, where, "returns a Flow.Publisher");
      handler = Handler.publisher(invoker::subscribe);
      outputType = typeParameter(returns, Flow.Publisher.class);
    } else if (CompletionStage.class.isAssignableFrom(rawReturn)) {
      type = requireUnary(declared, where);
      handler = Handler.async(invoker::callAsync);
      outputType = typeParameter(returns, CompletionStage.class);
    } else {
      type = requireUnary(declared, where);
      handler = Handler.blocking(invoker::call);
      outputType = returns;
    }

    Schema inputSchema =
        parameters.input() < 0
            ? Schema.unknown()
            : schemaOf(
                method.getGenericParameterTypes()[parameters.input()],
                where,
                "input",
                deferSchemas);
    Schema outputSchema = schemaOf(outputType, where, "output", deferSchemas);
    try {
      OperationSpec spec =
          OperationSpec.builder(namespace, name)
              .type(type)
              .version(annotation.version())
              .description(annotation.description())
              .inputSchema(inputSchema)
              .outputSchema(outputSchema)
              .accessControl(scopes(annotation.scopes()))
              .build();
      return new OperationDefinition(spec, handler);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  private static OperationType requireStreaming(OperationType declared, String where, String how) {
    if (declared == OperationType.MUTATION) {
      throw new IllegalArgumentException(
          where
              + " "
              + how
              + ", so it streams its results and is a SUBSCRIPTION; it cannot be declared a"
              + " MUTATION");
    }
    return OperationType.SUBSCRIPTION;
  }

  private static OperationType requireUnary(OperationType declared, String where) {
    if (declared == OperationType.SUBSCRIPTION) {
      throw new IllegalArgumentException(
          where
              + " is declared a SUBSCRIPTION but does not stream: return a Flow.Publisher, or"
              + " take an Emitter and return void");
    }
    return declared;
  }

  private static AccessControl scopes(String[] scopes) {
    // Set.of would refuse a repeated scope with an unhelpful message; a repeat is harmless.
    return new AccessControl(new java.util.LinkedHashSet<>(Arrays.asList(scopes)));
  }

  /** The {@link Operation#namespace()}, else the {@link Namespace} of the object's class. */
  private static String namespaceOf(Class<?> type, Operation annotation, String where) {
    if (!annotation.namespace().isEmpty()) {
      return annotation.namespace();
    }
    Namespace namespace = type.getAnnotation(Namespace.class); // @Inherited: superclasses count
    if (namespace == null) {
      throw new IllegalArgumentException(
          where
              + " has no namespace: set @Operation(namespace = ...) or annotate "
              + type.getName()
              + " with @Namespace");
    }
    return namespace.value();
  }

  /** {@link #schemaOf(Type, String, String)} now, or on first use when {@code defer}. */
  private static Schema schemaOf(Type type, String where, String what, boolean defer) {
    return defer ? Schema.deferred(() -> schemaOf(type, where, what)) : schemaOf(type, where, what);
  }

  /** The schema of a Java type, or unknown where the type says nothing (Object, JsonNode, ...). */
  private static Schema schemaOf(Type type, String where, String what) {
    if (type == null
        || type == void.class
        || type == Void.class
        || type == Object.class
        || type instanceof WildcardType
        || type instanceof TypeVariable) {
      return Schema.unknown();
    }
    Class<?> raw = Json.mapper().constructType(type).getRawClass();
    if (JsonNode.class.isAssignableFrom(raw) || ResponseEnvelope.class.isAssignableFrom(raw)) {
      return Schema.unknown();
    }
    try {
      return Schema.fromType(type);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          where
              + ": cannot derive the "
              + what
              + " schema from "
              + type.getTypeName()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The {@code T} of a {@code Publisher<T>} or {@code CompletionStage<T>}, however the return type
   * gets there ({@code CompletableFuture<T>}, {@code SubmissionPublisher<T>}, a class of one's
   * own); {@code null} when it is unknown.
   */
  private static Type typeParameter(Type type, Class<?> of) {
    if (type instanceof ParameterizedType parameterized && parameterized.getRawType() == of) {
      return upperBound(parameterized.getActualTypeArguments()[0]);
    }
    if (type instanceof ParameterizedType parameterized
        && parameterized.getRawType() == CompletableFuture.class) {
      return upperBound(parameterized.getActualTypeArguments()[0]);
    }
    JavaType[] found = Json.mapper().constructType(type).findTypeParameters(of);
    if (found == null || found.length != 1) {
      return null;
    }
    // Only a plain class is safe to hand on: a generic JavaType is no reflection Type we can pass.
    return found[0].containedTypeCount() == 0 && found[0].getRawClass() != Object.class
        ? found[0].getRawClass()
        : null;
  }

  private static Type upperBound(Type type) {
    return type instanceof WildcardType wildcard ? wildcard.getUpperBounds()[0] : type;
  }

  private static JavaType inputJavaType(Method method, Parameters parameters) {
    return parameters.input() < 0
        ? null
        : Json.mapper().constructType(method.getGenericParameterTypes()[parameters.input()]);
  }

  private static String describe(Method method) {
    Class<?> owner = method.getDeclaringClass();
    String simple = owner.getSimpleName();
    return (simple.isEmpty() ? owner.getName() : simple) + "." + method.getName() + "()";
  }

  /** Where a method takes its input, context and emitter; -1 for what it does not take. */
  private record Parameters(int count, int input, int context, int emitter) {
    static Parameters of(Method method, String where) {
      Class<?>[] types = method.getParameterTypes();
      int input = -1;
      int context = -1;
      int emitter = -1;
      for (int i = 0; i < types.length; i++) {
        if (types[i] == OperationContext.class) {
          if (context >= 0) {
            throw new IllegalArgumentException(where + " takes the OperationContext twice");
          }
          context = i;
        } else if (types[i] == EmitterSubscriptionHandler.Emitter.class) {
          if (emitter >= 0) {
            throw new IllegalArgumentException(where + " takes an Emitter twice");
          }
          emitter = i;
        } else if (input < 0) {
          input = i;
        } else {
          throw new IllegalArgumentException(
              where
                  + " takes more than one input parameter ("
                  + types[input].getSimpleName()
                  + " and "
                  + types[i].getSimpleName()
                  + "); gather them in one record, the operation's input object");
        }
      }
      return new Parameters(types.length, input, context, emitter);
    }
  }

  /** Calls the method with its arguments taken from the input and the context. */
  private record Invoker(
      Object target, Method method, String id, Parameters parameters, JavaType inputType) {
    Invoker {
      if (!method.trySetAccessible()) {
        throw new IllegalArgumentException(
            describe(method)
                + " is not accessible: make its class public, or open its package to"
                + " dev.alkdev.operations.core");
      }
    }

    Object call(JsonNode input, OperationContext context) throws Exception {
      return invoke(input, context, null);
    }

    CompletionStage<?> callAsync(JsonNode input, OperationContext context) {
      try {
        return (CompletionStage<?>) invoke(input, context, null);
      } catch (Exception e) {
        return CompletableFuture.failedFuture(e);
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
      Object[] args = new Object[parameters.count()];
      if (parameters.input() >= 0) {
        args[parameters.input()] = convert(input);
      }
      if (parameters.context() >= 0) {
        args[parameters.context()] = context;
      }
      if (parameters.emitter() >= 0) {
        args[parameters.emitter()] = emitter;
      }
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        // The method's own exception, not the reflection wrapper, is what failed the call.
        Throwable cause = e.getCause();
        if (cause instanceof Exception exception) {
          throw exception;
        }
        throw (Error) cause;
      }
    }

    /** The input as the parameter's type; the input schema has already been checked. */
    private Object convert(JsonNode input) {
      Class<?> raw = inputType.getRawClass();
      if (JsonNode.class.isAssignableFrom(raw) && raw.isInstance(input)) {
        return input; // JsonNode parameters take the tree as it is
      }
      try {
        return Json.mapper().treeToValue(input, inputType);
      } catch (JacksonException e) {
        throw CallError.of(
            ErrorCode.INVALID_INPUT,
            "Invalid input of "
                + id
                + pointer(e)
                + ": it does not fit the operation's input type ("
                + e.getOriginalMessage()
                + ")",
            e);
      } catch (IllegalArgumentException e) {
        throw CallError.of(
            ErrorCode.INVALID_INPUT, "Invalid input of " + id + ": " + e.getMessage(), e);
      }
    }

    private static String pointer(JacksonException e) {
      StringBuilder pointer = new StringBuilder();
      for (JacksonException.Reference reference : e.getPath()) {
        if (reference.getPropertyName() != null) {
          pointer
              .append('/')
              .append(reference.getPropertyName().replace("~", "~0").replace("/", "~1"));
        } else if (reference.getIndex() >= 0) {
          pointer.append('/').append(reference.getIndex());
        }
      }
      return pointer.length() == 0 ? "" : " at " + pointer;
    }
  }
}
