package dev.alkdev.operations.serving;

import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;

/**
 * A call to serve, as an adapter read it from its transport: the operation, its input, who calls
 * (as the adapter authenticated it; anonymous when it did not), and what the call carries with it.
 * Immutable; built with {@link #builder(String)}.
 */
public final class CallRequest {
  private final String requestId;
  private final String operationId;
  private final JsonNode input; // null: none given
  private final Identity identity;
  private final Deadline deadline;
  private final String parentRequestId;
  private final CallMetadata metadata;
  private final long demand;
  private final String client;

  private CallRequest(Builder b) {
    this.requestId = b.requestId != null ? b.requestId : OperationContext.newRequestId();
    this.operationId = b.operationId;
    this.input = b.input;
    this.identity = b.identity;
    this.deadline = b.deadline;
    this.parentRequestId = b.parentRequestId;
    this.metadata = b.metadata;
    this.demand = b.demand;
    this.client = b.client;
  }

  /** A request for {@code operationId}: no input, anonymous, no deadline. */
  public static Builder builder(String operationId) {
    return new Builder(operationId);
  }

  /** The call's request id: the one given, or a fresh random one. */
  public String requestId() {
    return requestId;
  }

  public String operationId() {
    return operationId;
  }

  /**
   * The input, when the caller gave one; without one the pipeline runs the call with the
   * operation's {@link dev.alkdev.operations.OperationSpec#noInput()} (the rule of every surface).
   */
  public Optional<JsonNode> input() {
    return Optional.ofNullable(input);
  }

  /** Who calls, as the adapter authenticated it; {@link Identity#anonymous()} for nobody. */
  public Identity identity() {
    return identity;
  }

  public Optional<Deadline> deadline() {
    return Optional.ofNullable(deadline);
  }

  /** The call the caller makes this one for. */
  public Optional<String> parentRequestId() {
    return Optional.ofNullable(parentRequestId);
  }

  /** What the caller sent along (trace context); it reaches the handler's context. */
  public CallMetadata metadata() {
    return metadata;
  }

  /**
   * Where an anonymous caller comes from, as the adapter names it (a remote address, a session, a
   * reply inbox): the pipeline gives each such client its own fair share of the server, so that one
   * anonymous client cannot take the share of every other. Absent when the adapter cannot tell its
   * anonymous callers apart; an authenticated caller is its identity, whatever its client.
   */
  public Optional<String> client() {
    return Optional.ofNullable(client);
  }

  /**
   * Present when the caller consumes a stream: how many items it takes before it asks for more
   * ({@link ServedCall#request}); {@link Long#MAX_VALUE} for unbounded. Absent for a unary caller.
   */
  public OptionalLong demand() {
    return demand > 0 ? OptionalLong.of(demand) : OptionalLong.empty();
  }

  @Override
  public String toString() {
    return "CallRequest[" + operationId + ", requestId=" + requestId + "]";
  }

  /** Builds a {@link CallRequest}. */
  public static final class Builder {
    private final String operationId;
    private String requestId;
    private JsonNode input;
    private Identity identity = Identity.anonymous();
    private Deadline deadline;
    private String parentRequestId;
    private CallMetadata metadata = CallMetadata.empty();
    private long demand; // 0: a unary caller
    private String client;

    private Builder(String operationId) {
      this.operationId = Objects.requireNonNull(operationId, "operationId");
    }

    /** The request id (1 to 128 characters); a fresh random one by default. */
    public Builder requestId(String requestId) {
      Objects.requireNonNull(requestId, "requestId");
      if (requestId.isBlank() || requestId.length() > 128) {
        throw new IllegalArgumentException("requestId must be 1 to 128 characters");
      }
      this.requestId = requestId;
      return this;
    }

    public Builder input(JsonNode input) {
      this.input = Objects.requireNonNull(input, "input (leave it unset for none)");
      return this;
    }

    /** Who calls, as the adapter authenticated it (anonymous by default). */
    public Builder identity(Identity identity) {
      this.identity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    public Builder deadline(Deadline deadline) {
      this.deadline = Objects.requireNonNull(deadline, "deadline");
      return this;
    }

    public Builder parentRequestId(String parentRequestId) {
      this.parentRequestId = Objects.requireNonNull(parentRequestId, "parentRequestId");
      return this;
    }

    public Builder metadata(CallMetadata metadata) {
      this.metadata = Objects.requireNonNull(metadata, "metadata");
      return this;
    }

    /**
     * The caller consumes a stream and takes {@code n} items before it asks for more; {@link
     * Long#MAX_VALUE} for unbounded. Without it the caller is unary.
     */
    public Builder demand(long n) {
      if (n <= 0) {
        throw new IllegalArgumentException("demand must be positive, was " + n);
      }
      this.demand = n;
      return this;
    }

    /**
     * Where the caller comes from when it is anonymous (a remote address, a session, a reply inbox;
     * 1 to 256 characters): its {@link CallRequest#client() fair share} is this client's own.
     */
    public Builder client(String client) {
      Objects.requireNonNull(client, "client");
      if (client.isEmpty() || client.length() > 256) {
        throw new IllegalArgumentException(
            "client must be 1 to 256 characters, was " + client.length());
      }
      this.client = client;
      return this;
    }

    /** The request; an operation id that names no operation is served as OPERATION_NOT_FOUND. */
    public CallRequest build() {
      return new CallRequest(this);
    }
  }
}
