package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;

/**
 * One message of the call protocol. On the wire each is a JSON object with the protocol version
 * {@code "v"} and a {@code "type"} discriminator; every event but {@code call.alive} belongs to one
 * call and names its {@code requestId} ({@link CallScoped}). {@link CallEvents} reads and writes
 * them. docs/protocol.md describes every field.
 */
public sealed interface CallEvent permits CallEvent.CallScoped, CallEvent.Alive {

  /** The wire name: {@code call.requested}, {@code call.responded}, ... */
  String type();

  /** An event that belongs to one call: every event but {@link Alive}. */
  sealed interface CallScoped extends CallEvent
      permits Requested, Responded, Failed, Completed, Aborted, Demand {
    /** The call this event belongs to: 32 lowercase hex digits (128 random bits). */
    String requestId();
  }

  /**
   * {@code call.requested}: a caller asks for an operation.
   *
   * @param input the operation's input (JSON null when there is none)
   * @param identity who the caller says it is; a serving side uses it only when its transport
   *     trusts the payload (in-process), otherwise it stamps the identity it authenticated
   * @param deadlineMillis time remaining when sent, in milliseconds (relative, so clocks may
   *     differ)
   * @param replyTo where responses go (the caller's inbox topic)
   * @param demand for a SUBSCRIPTION: how many items the caller takes before it sends {@code
   *     call.demand}; absent means unbounded
   * @param meta what travels with the call (trace context, baggage): the wire's {@code meta}
   *     object, empty when absent
   */
  record Requested(
      String requestId,
      String operationId,
      JsonNode input,
      Optional<String> parentRequestId,
      Optional<Identity> identity,
      OptionalLong deadlineMillis,
      Optional<String> replyTo,
      OptionalLong demand,
      CallMetadata meta)
      implements CallScoped {
    /**
     * @throws IllegalArgumentException if a field breaks the protocol's rules (an id, a topic, a
     *     negative deadline, a demand below 1, an identity over the limits)
     */
    public Requested {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(operationId, "operationId");
      Objects.requireNonNull(input, "input");
      Objects.requireNonNull(parentRequestId, "parentRequestId");
      Objects.requireNonNull(identity, "identity");
      Objects.requireNonNull(deadlineMillis, "deadlineMillis");
      Objects.requireNonNull(replyTo, "replyTo");
      Objects.requireNonNull(demand, "demand");
      Objects.requireNonNull(meta, "meta");
      checkRequestId(requestId);
      if (!OperationSpec.isValidId(operationId)) {
        throw new IllegalArgumentException("Not a valid operation id: '" + operationId + "'");
      }
      parentRequestId.ifPresent(CallEvent::checkRequestId);
      replyTo.ifPresent(
          topic -> {
            if (!CallEvents.isValidTopic(topic)) {
              throw new IllegalArgumentException("Not a valid reply topic: '" + topic + "'");
            }
          });
      identity.ifPresent(CallEvent::checkIdentity);
      if (deadlineMillis.isPresent() && deadlineMillis.getAsLong() < 0) {
        throw new IllegalArgumentException(
            "deadlineMillis must not be negative, was " + deadlineMillis.getAsLong());
      }
      if (demand.isPresent() && demand.getAsLong() <= 0) {
        throw new IllegalArgumentException("demand must be positive, was " + demand.getAsLong());
      }
    }

    /** A request without metadata. */
    public Requested(
        String requestId,
        String operationId,
        JsonNode input,
        Optional<String> parentRequestId,
        Optional<Identity> identity,
        OptionalLong deadlineMillis,
        Optional<String> replyTo,
        OptionalLong demand) {
      this(
          requestId,
          operationId,
          input,
          parentRequestId,
          identity,
          deadlineMillis,
          replyTo,
          demand,
          CallMetadata.empty());
    }

    @Override
    public String type() {
      return "call.requested";
    }
  }

  /** {@code call.responded}: a result; a stream sends one per item. */
  record Responded(String requestId, ResponseEnvelope<JsonNode> output) implements CallScoped {
    public Responded {
      Objects.requireNonNull(requestId, "requestId");
      checkRequestId(requestId);
      Objects.requireNonNull(output, "output");
    }

    @Override
    public String type() {
      return "call.responded";
    }
  }

  /** {@code call.error}: the call failed; nothing follows it. */
  record Failed(
      String requestId,
      ErrorCode code,
      String message,
      boolean retryable,
      Optional<JsonNode> details)
      implements CallScoped {
    public Failed {
      Objects.requireNonNull(requestId, "requestId");
      checkRequestId(requestId);
      Objects.requireNonNull(code, "code");
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(details, "details");
    }

    @Override
    public String type() {
      return "call.error";
    }
  }

  /** {@code call.completed}: a stream ended normally; nothing follows it. */
  record Completed(String requestId) implements CallScoped {
    public Completed {
      Objects.requireNonNull(requestId, "requestId");
      checkRequestId(requestId);
    }

    @Override
    public String type() {
      return "call.completed";
    }
  }

  /** {@code call.aborted}: the caller gave up; the serving side cancels the call. */
  record Aborted(String requestId, Optional<String> reason) implements CallScoped {
    public Aborted {
      Objects.requireNonNull(requestId, "requestId");
      checkRequestId(requestId);
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String type() {
      return "call.aborted";
    }
  }

  /** {@code call.demand}: the caller of a stream takes {@code n} more items. */
  record Demand(String requestId, long n) implements CallScoped {
    public Demand {
      Objects.requireNonNull(requestId, "requestId");
      checkRequestId(requestId);
      if (n <= 0) {
        throw new IllegalArgumentException("demand must be positive, was " + n);
      }
    }

    @Override
    public String type() {
      return "call.demand";
    }
  }

  /**
   * {@code call.alive}: a caller with calls in flight is still there. Sent to {@code ops.ctl} every
   * few seconds (one message per caller, however many calls it has), it renews the caller's lease
   * on every server serving calls for its inbox; a server that hears nothing from an inbox for its
   * lease timeout cancels that inbox's calls (docs/protocol.md, "the caller goes away").
   *
   * @param inbox the caller's inbox: {@code ops.inbox.} followed by 1 to 128 letters, digits, '_',
   *     '.', ':' or '-'
   */
  record Alive(String inbox) implements CallEvent {
    /**
     * @throws IllegalArgumentException if {@code inbox} is not an inbox topic
     */
    public Alive {
      Objects.requireNonNull(inbox, "inbox");
      if (!ProtocolTopics.isInbox(inbox)) {
        throw new IllegalArgumentException(
            "Not an inbox topic: '" + inbox + "' (ops.inbox. and a request id)");
      }
    }

    @Override
    public String type() {
      return "call.alive";
    }
  }

  private static void checkRequestId(String requestId) {
    if (!CallEvents.isValidRequestId(requestId)) {
      throw new IllegalArgumentException(
          "Not a valid request id: '"
              + requestId
              + "' (1 to 128 letters, digits, '_', '.', ':' or '-')");
    }
  }

  private static void checkIdentity(Identity identity) {
    String subject = identity.subject();
    if (subject.codePointCount(0, subject.length()) > CallEvents.MAX_SUBJECT_LENGTH) {
      throw new IllegalArgumentException(
          "The identity's subject is longer than " + CallEvents.MAX_SUBJECT_LENGTH + " characters");
    }
    if (identity.scopes().size() > CallEvents.MAX_SCOPES) {
      throw new IllegalArgumentException(
          "The identity has more than " + CallEvents.MAX_SCOPES + " scopes");
    }
    for (String scope : identity.scopes()) {
      if (scope.isBlank()) {
        throw new IllegalArgumentException("The identity has a blank scope");
      }
    }
  }
}
