package dev.alkdev.operations;

import dev.alkdev.operations.internal.CallWatch;
import dev.alkdev.operations.internal.ContextAccess;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Everything a call carries besides its input: its request id, the request that started it, who is
 * calling, by when it must finish, the signal that cancels it, the {@link CallMetadata} that
 * travels with it (trace context), and attributes that interceptors and handlers attach for the
 * code that runs after them ({@link #attribute}). Immutable; derive a changed copy with {@link
 * #toBuilder()}, {@link #withAttribute} or {@link #withMetadata}. The calls a call makes ({@link
 * #child()}) inherit its identity, deadline, metadata and attributes.
 */
public final class OperationContext {
  private static final SecureRandom RANDOM = new SecureRandom();

  static {
    ContextAccess.setDrawnRequestId(context -> Optional.ofNullable(context.requestId.value));
  }

  private final LazyRequestId requestId;
  private final String parentRequestId;
  private final Identity identity;
  private final Deadline deadline;
  private final Cancellation cancellation;
  private final Function<OperationContext, OperationEnv> envBinder;
  private final CallMetadata metadata;
  private final Object[] attributes; // see Attributes; never written to
  private OperationEnv env;

  private OperationContext(Builder b) {
    this.requestId = b.requestId != null ? b.requestId : new LazyRequestId(null);
    this.parentRequestId = b.parentRequestId;
    this.identity = b.identity;
    this.deadline = b.deadline;
    this.cancellation = b.cancellation != null ? b.cancellation : Cancellation.create();
    this.envBinder = b.envBinder;
    this.metadata = b.metadata;
    this.attributes = b.attributes;
  }

  /** A context with a fresh request id, anonymous identity, no deadline, and its own signal. */
  public static OperationContext create() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A 128-bit random request id, as 32 lowercase hex digits. */
  public static String newRequestId() {
    return HexFormat.of().formatHex(RequestIdBytes.next());
  }

  /**
   * Random bytes for request ids, drawn from {@link SecureRandom} 4 KiB at a time per thread: one
   * draw per id would serialise every caller on the shared generator's lock and cost more than the
   * rest of an in-process call.
   */
  private static final class RequestIdBytes {
    private static final int BATCH = 4096;
    private static final ThreadLocal<RequestIdBytes> LOCAL =
        ThreadLocal.withInitial(RequestIdBytes::new);

    private final byte[] buffer = new byte[BATCH];
    private int position = BATCH;

    static byte[] next() {
      RequestIdBytes local = LOCAL.get();
      if (local.position == BATCH) {
        RANDOM.nextBytes(local.buffer);
        local.position = 0;
      }
      byte[] id = java.util.Arrays.copyOfRange(local.buffer, local.position, local.position + 16);
      // Each id's bytes are used once and forgotten.
      java.util.Arrays.fill(local.buffer, local.position, local.position + 16, (byte) 0);
      local.position += 16;
      return id;
    }
  }

  public String requestId() {
    return requestId.get();
  }

  public Optional<String> parentRequestId() {
    return Optional.ofNullable(parentRequestId);
  }

  public Identity identity() {
    return identity;
  }

  public Optional<Deadline> deadline() {
    return Optional.ofNullable(deadline);
  }

  public Cancellation cancellation() {
    return cancellation;
  }

  /** The metadata that travels with this call and the calls it makes (empty by default). */
  public CallMetadata metadata() {
    return metadata;
  }

  /** The value of the attribute {@code key}, if set on this context or one it derives from. */
  public <T> Optional<T> attribute(ContextKey<T> key) {
    Objects.requireNonNull(key, "key");
    @SuppressWarnings("unchecked") // attribute() and withAttribute() pair a key with its type
    T value = (T) Attributes.get(attributes, key);
    return Optional.ofNullable(value);
  }

  /** A copy of this context (same request id and signal) with the attribute {@code key} set. */
  public <T> OperationContext withAttribute(ContextKey<T> key, T value) {
    return toBuilder().attribute(key, value).build();
  }

  /** A copy of this context (same request id and signal) with other metadata. */
  public OperationContext withMetadata(CallMetadata metadata) {
    return toBuilder().metadata(metadata).build();
  }

  /**
   * The operations this call may call in turn, each as a nested call ({@link #child()}). A context
   * a registry hands to a handler is bound to that registry; a context built by hand has an env
   * whose calls fail with OPERATION_NOT_FOUND.
   */
  public OperationEnv env() {
    OperationEnv current = env;
    if (current == null) {
      current = envBinder == null ? UnboundEnv.INSTANCE : envBinder.apply(this);
      env = current; // a benign race: any two envs built for this context behave the same
    }
    return current;
  }

  /** Whether the call was cancelled or its deadline has passed. */
  public boolean isDone() {
    return cancellation.isCancelled() || (deadline != null && deadline.isExpired());
  }

  /**
   * Throws if the call should not go on: the cancellation's reason (code CANCELLED, or
   * DEADLINE_EXCEEDED if a deadline cancelled it) when it was cancelled, else DEADLINE_EXCEEDED
   * when its deadline has passed. For work about to start, or between steps.
   */
  public void throwIfDone() {
    Optional<CallError> reason = cancellation.reason();
    if (reason.isPresent()) {
      throw reason.get();
    }
    if (deadline != null && deadline.isExpired()) {
      throw CallError.of(ErrorCode.DEADLINE_EXCEEDED, "The call's deadline has passed");
    }
  }

  /**
   * Ties {@code work} to this call. The future returned completes as {@code work} does, unless the
   * call is cancelled (it fails with the cancellation's reason) or its deadline passes (it fails
   * with DEADLINE_EXCEEDED) first; then {@code work} is cancelled, which stops the exchange of an
   * {@code HttpClient.sendAsync} future, say. When the future ends first, its deadline timer and
   * cancellation listener are released at once. A deadline never completes it on the timer thread,
   * so continuations chained to it cannot hold up other calls' deadlines.
   */
  public <T> CompletableFuture<T> bind(CompletableFuture<T> work) {
    return CallWatch.bind(work, deadline(), cancellation, "The call's deadline has passed");
  }

  /**
   * The context of a call this call makes: a fresh request id, this request as its parent, the same
   * identity and deadline, and a child signal (cancelled with this one).
   */
  public OperationContext child() {
    Builder builder = builder().parentRequestId(requestId()).cancellation(cancellation.child());
    builder.identity = identity;
    builder.deadline = deadline;
    builder.envBinder = envBinder;
    builder.metadata = metadata;
    builder.attributes = attributes;
    return builder.build();
  }

  /** A builder holding everything this context holds; what it does not hold stays unset. */
  public Builder toBuilder() {
    Builder builder = builder();
    builder.requestId = requestId; // shared, so a copy drawn later still has the same id
    builder.parentRequestId = parentRequestId;
    builder.identity = identity;
    builder.deadline = deadline;
    builder.cancellation = cancellation;
    builder.envBinder = envBinder;
    builder.metadata = metadata;
    builder.attributes = attributes;
    return builder;
  }

  @Override
  public String toString() {
    return "OperationContext[requestId="
        + requestId()
        + (parentRequestId == null ? "" : ", parent=" + parentRequestId)
        + ", identity="
        + identity.subject()
        + (deadline == null ? "" : ", " + deadline)
        + (cancellation.isCancelled() ? ", cancelled" : "")
        + "]";
  }

  /**
   * Builds an {@link OperationContext}. What is optional (the parent request, the deadline, the env
   * binder) is absent when its setter is not called; no setter accepts {@code null}.
   */
  public static final class Builder {
    private LazyRequestId requestId;
    private String parentRequestId;
    private Identity identity = Identity.anonymous();
    private Deadline deadline;
    private Cancellation cancellation;
    private Function<OperationContext, OperationEnv> envBinder;
    private CallMetadata metadata = CallMetadata.empty();
    private Object[] attributes = Attributes.NONE;

    private Builder() {}

    public Builder requestId(String requestId) {
      Objects.requireNonNull(requestId, "requestId");
      if (requestId.isBlank() || requestId.length() > 128) {
        throw new IllegalArgumentException("requestId must be 1 to 128 characters");
      }
      this.requestId = new LazyRequestId(requestId);
      return this;
    }

    /** The request that made this call; unset for a call nothing else made. */
    public Builder parentRequestId(String parentRequestId) {
      this.parentRequestId =
          Objects.requireNonNull(
              parentRequestId, "parentRequestId (leave it unset for a call without a parent)");
      return this;
    }

    public Builder identity(Identity identity) {
      this.identity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    /** By when the call must finish; unset for no deadline. */
    public Builder deadline(Deadline deadline) {
      this.deadline =
          Objects.requireNonNull(deadline, "deadline (leave it unset for a call without one)");
      return this;
    }

    public Builder timeout(java.time.Duration timeout) {
      return deadline(Deadline.after(timeout));
    }

    public Builder cancellation(Cancellation cancellation) {
      this.cancellation = Objects.requireNonNull(cancellation, "cancellation");
      return this;
    }

    /**
     * How the context finds its {@link OperationContext#env()}: registries and transports set it so
     * that handlers can make nested calls. Unset, the env's calls fail with OPERATION_NOT_FOUND.
     */
    public Builder envBinder(Function<OperationContext, OperationEnv> envBinder) {
      this.envBinder =
          Objects.requireNonNull(envBinder, "envBinder (leave it unset for an unbound env)");
      return this;
    }

    /** The metadata that travels with the call ({@link CallMetadata#empty()} by default). */
    public Builder metadata(CallMetadata metadata) {
      this.metadata = Objects.requireNonNull(metadata, "metadata");
      return this;
    }

    /** Sets the attribute {@code key}, replacing an earlier value. */
    public <T> Builder attribute(ContextKey<T> key, T value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, () -> "the value of " + key);
      this.attributes = Attributes.with(attributes, key, value);
      return this;
    }

    public OperationContext build() {
      return new OperationContext(this);
    }
  }

  /**
   * A context's attributes: an immutable array of key/value pairs (keys at even indexes, each
   * followed by its value), copied on write. Contexts carry few attributes and most none, so a
   * shared empty array and a linear scan beat a map; the bare array, not an object around it,
   * because an interceptor that sets one attribute does so on every call (D84).
   */
  private static final class Attributes {
    static final Object[] NONE = new Object[0];

    private Attributes() {}

    static Object get(Object[] pairs, ContextKey<?> key) {
      for (int i = 0; i < pairs.length; i += 2) {
        if (pairs[i] == key) {
          return pairs[i + 1];
        }
      }
      return null;
    }

    static Object[] with(Object[] pairs, ContextKey<?> key, Object value) {
      for (int i = 0; i < pairs.length; i += 2) {
        if (pairs[i] == key) {
          Object[] copy = pairs.clone();
          copy[i + 1] = value;
          return copy;
        }
      }
      Object[] copy = java.util.Arrays.copyOf(pairs, pairs.length + 2);
      copy[pairs.length] = key;
      copy[pairs.length + 1] = value;
      return copy;
    }
  }

  /**
   * A request id drawn from {@link SecureRandom} on first use: most in-process calls never read
   * theirs, and a draw costs more than the rest of a call. Contexts derived from one another share
   * it.
   */
  private static final class LazyRequestId {
    private volatile String value;

    LazyRequestId(String value) {
      this.value = value;
    }

    String get() {
      String id = value;
      if (id == null) {
        synchronized (this) {
          id = value;
          if (id == null) {
            id = newRequestId();
            value = id;
          }
        }
      }
      return id;
    }
  }
}
