package dev.alkdev.operations.typed;

import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationCaller;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Calls operations through a Java interface: each method is one operation, its parameter the input
 * (a record, or several named parameters gathered into the input object), its return type the
 * result. Works over any {@link OperationCaller}: a registry (local handlers, imported OpenAPI or
 * MCP operations), a remote catalogue, a call protocol client.
 *
 * <pre>{@code
 * @Namespace("shop")
 * interface Shop {
 *   @Operation(name = "quote")
 *   Quote quote(Order order);
 * }
 * Shop shop = TypedClient.create(Shop.class, registry);
 * Quote quote = shop.quote(new Order("tea", 2));
 * }</pre>
 *
 * <p><b>Binding.</b> A method's operation is {@code <namespace>.<name>}: the name from {@link
 * Operation#name()}, else the method's name, else (when the caller knows no operation by that name)
 * the method's name in snake case ({@code listPets} → {@code list_pets}); the namespace from {@link
 * Operation#namespace()}, else the interface's {@link Namespace}, else {@link
 * Builder#namespace(String)}. Default methods without {@code @Operation} run as written.
 *
 * <p><b>Methods.</b> Parameters: none (the input is {@code {}}), one input of any type Jackson
 * converts to JSON, or several, gathered into an object by their names (compile with {@code javac
 * -parameters}); and optionally an {@link dev.alkdev.operations.OperationContext}, the call this
 * one is made for (the call becomes its child: same identity, deadline, signal and metadata).
 * Results: {@code R} (the method blocks; {@code void} ignores the data), {@code
 * CompletableFuture<R>}, {@code ResponseEnvelope<R>} or a future of one (the envelope with its data
 * as {@code R}), and, for a SUBSCRIPTION, {@code Flow.Publisher<R>} or {@code
 * Flow.Publisher<ResponseEnvelope<R>>}, backpressured as the caller's own {@code subscribe} is.
 *
 * <p><b>Checked when built.</b> Every method is checked against its operation's spec: the operation
 * exists, a stream is a SUBSCRIPTION and nothing else is, the input type produces only what the
 * input schema accepts (every required property has a component, no component the schema forbids,
 * kinds and enum constants that fit), and the result type reads every value the output schema
 * allows (a primitive only where the value is always present, a constant for every enum value). One
 * {@link IllegalArgumentException} lists every mismatch of every method.
 *
 * <p><b>Errors.</b> A call fails with the {@link dev.alkdev.operations.CallError} the caller gave:
 * thrown by blocking methods, failing the future or the stream otherwise. A reply that does not fit
 * the Java type is PROTOCOL_ERROR; a blocking call whose thread is interrupted is cancelled
 * (CANCELLED, and the interrupt flag stays set).
 *
 * <p>Clients are thread-safe and hold nothing but the caller: closing the caller ends them.
 */
public final class TypedClient {
  private TypedClient() {}

  /**
   * A client of {@code contract} over {@code caller}, with default settings.
   *
   * @throws IllegalArgumentException listing every method that does not fit its operation
   */
  public static <T> T create(Class<T> contract, OperationCaller caller) {
    return builder(contract, caller).build();
  }

  public static <T> Builder<T> builder(Class<T> contract, OperationCaller caller) {
    return new Builder<>(contract, caller);
  }

  /** Configures a typed client; {@link #build()} checks it. */
  public static final class Builder<T> {
    private final Class<T> contract;
    private final OperationCaller caller;
    private String namespace;
    private Identity identity = Identity.anonymous();
    private Duration timeout;
    private CallMetadata metadata = CallMetadata.empty();
    private Map<String, OperationSpec> specs;

    private Builder(Class<T> contract, OperationCaller caller) {
      this.contract = Objects.requireNonNull(contract, "contract");
      this.caller = Objects.requireNonNull(caller, "caller");
      if (!contract.isInterface()) {
        throw new IllegalArgumentException(
            contract.getName() + " is not an interface; a typed client implements an interface");
      }
    }

    /** The namespace of methods that name none, when the interface has no {@link Namespace}. */
    public Builder<T> namespace(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace");
      return this;
    }

    /** Who calls, when a method is not given a context (anonymous unless set). */
    public Builder<T> identity(Identity identity) {
      this.identity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    /**
     * Each call's deadline, from when it is made; with a context, the sooner of this and the
     * context's. None unless set: the caller's own default applies (a remote caller has one).
     */
    public Builder<T> timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout (leave it unset for none)");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, was " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /** The metadata calls carry when a method is not given a context. */
    public Builder<T> metadata(CallMetadata metadata) {
      this.metadata = Objects.requireNonNull(metadata, "metadata (CallMetadata.empty() for none)");
      return this;
    }

    /**
     * Checks the interface against these specs instead of the caller's: for a caller that knows
     * none (a bare call protocol client), {@code AnnotatedOperations.specs(contract)} gives the
     * contract's own.
     */
    public Builder<T> specs(Collection<OperationSpec> specs) {
      Map<String, OperationSpec> byId = new HashMap<>();
      for (OperationSpec spec : Objects.requireNonNull(specs, "specs")) {
        byId.put(spec.id(), spec);
      }
      this.specs = byId;
      return this;
    }

    /** Every mismatch between the interface and the operations it calls; empty when it fits. */
    public List<String> check() {
      List<String> problems = new ArrayList<>();
      bind(problems);
      return List.copyOf(problems);
    }

    /**
     * The client.
     *
     * @throws IllegalArgumentException listing every mismatch, one per line
     */
    public T build() {
      List<String> problems = new ArrayList<>();
      Map<Method, ClientMethod> methods = bind(problems);
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(
            contract.getSimpleName()
                + " does not fit the operations it calls ("
                + problems.size()
                + (problems.size() == 1 ? " mismatch" : " mismatches")
                + "):\n  - "
                + String.join("\n  - ", problems));
      }
      ClientHandler handler =
          new ClientHandler(contract.getSimpleName() + " over " + caller, methods);
      Object proxy =
          Proxy.newProxyInstance(contract.getClassLoader(), new Class<?>[] {contract}, handler);
      return contract.cast(proxy);
    }

    private Map<Method, ClientMethod> bind(List<String> problems) {
      ClientDefaults defaults =
          identity.equals(Identity.anonymous()) && timeout == null && metadata.isEmpty()
              ? ClientDefaults.none()
              : new ClientDefaults(identity, timeout, metadata);
      Map<Method, ClientMethod> bound = new HashMap<>();
      List<Method> methods = new ArrayList<>(List.of(contract.getMethods()));
      methods.sort(Comparator.comparing(Method::getName).thenComparing(Method::toString));
      for (Method method : methods) {
        if (Modifier.isStatic(method.getModifiers())
            || (method.isDefault() && !method.isAnnotationPresent(Operation.class))) {
          continue;
        }
        Optional<String> namespaceOf = namespaceOf(method);
        if (namespaceOf.isEmpty()) {
          problems.add(
              ClientMethod.describe(method)
                  + ": no namespace: annotate "
                  + contract.getSimpleName()
                  + " with @Namespace, set @Operation(namespace = ...), or give the builder one");
          continue;
        }
        String id = idOf(method, namespaceOf.get());
        bound.put(method, ClientMethod.bind(method, id, specOf(id), defaults, caller, problems));
      }
      if (bound.isEmpty() && problems.isEmpty()) {
        problems.add(contract.getSimpleName() + " has no methods to call operations with");
      }
      return Map.copyOf(bound);
    }

    private Optional<String> namespaceOf(Method method) {
      Operation operation = method.getAnnotation(Operation.class);
      if (operation != null && !operation.namespace().isEmpty()) {
        return Optional.of(operation.namespace());
      }
      Namespace declared = method.getDeclaringClass().getAnnotation(Namespace.class);
      if (declared == null) {
        declared = contract.getAnnotation(Namespace.class);
      }
      if (declared != null) {
        return Optional.of(declared.value());
      }
      return Optional.ofNullable(namespace);
    }

    private String idOf(Method method, String namespace) {
      Operation operation = method.getAnnotation(Operation.class);
      if (operation != null && !operation.name().isEmpty()) {
        return namespace + "." + operation.name();
      }
      String exact = namespace + "." + method.getName();
      if (specOf(exact).isPresent()) {
        return exact;
      }
      String snake = namespace + "." + snakeCase(method.getName());
      return specOf(snake).isPresent() ? snake : exact;
    }

    private Optional<OperationSpec> specOf(String id) {
      return specs != null ? Optional.ofNullable(specs.get(id)) : caller.spec(id);
    }
  }

  /** {@code listPets} → {@code list_pets}; {@code getHTTPStatus} → {@code get_http_status}. */
  static String snakeCase(String name) {
    StringBuilder snake = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean upper = Character.isUpperCase(c);
      if (upper && i > 0) {
        boolean afterLower = !Character.isUpperCase(name.charAt(i - 1));
        boolean beforeLower = i + 1 < name.length() && Character.isLowerCase(name.charAt(i + 1));
        if (afterLower || beforeLower) {
          snake.append('_');
        }
      }
      snake.append(Character.toLowerCase(c));
    }
    return snake.toString().toLowerCase(Locale.ROOT);
  }
}
