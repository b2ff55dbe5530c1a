package dev.alkdev.operations;

import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one unchecked exception of the library: a failed call, with a code from a closed set.
 *
 * <p>What crosses a process boundary is the code, the message, the retryable flag and the details;
 * the cause (a handler's own exception, say) stays local and is never serialised.
 */
public final class CallError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;
  private final boolean retryable;
  private final transient JsonNode details;
  private final transient List<SchemaError> validationErrors;

  private CallError(
      ErrorCode code,
      String message,
      boolean retryable,
      JsonNode details,
      List<SchemaError> validationErrors,
      Throwable cause) {
    super(message, cause);
    this.code = code;
    this.retryable = retryable;
    this.details = details;
    this.validationErrors = validationErrors;
  }

  /** An error with the code's default retryable flag. */
  public static CallError of(ErrorCode code, String message) {
    return builder(code, message).build();
  }

  /** An error that keeps a local cause (never sent over the wire). */
  public static CallError of(ErrorCode code, String message, Throwable cause) {
    return builder(code, message).cause(cause).build();
  }

  /**
   * An {@link ErrorCode#INVALID_INPUT} error listing every schema error.
   *
   * @param what what was being checked, for the message: "input of demo.echo", say
   */
  public static CallError invalid(String what, List<SchemaError> errors) {
    Objects.requireNonNull(errors, "errors");
    StringBuilder message = new StringBuilder("Invalid ").append(what).append(':');
    int shown = 0;
    for (SchemaError error : errors) {
      if (shown++ == 5) {
        message.append(" (and ").append(errors.size() - 5).append(" more)");
        break;
      }
      message.append(shown == 1 ? " " : "; ").append(error);
    }
    return builder(ErrorCode.INVALID_INPUT, message.toString()).validationErrors(errors).build();
  }

  /**
   * Throws an {@link ErrorCode#INVALID_INPUT} error listing every schema error (see {@link
   * #invalid}), unless {@code value} matches {@code schema}: the seeds' {@code validateOrThrow}. It
   * lives here rather than on {@link Schema} because the schema module knows nothing of calls.
   *
   * @param what what is being checked, for the message: "input of demo.echo", say
   */
  public static void validateOrThrow(Schema schema, JsonNode value, String what) {
    List<SchemaError> errors = schema.validate(value);
    if (!errors.isEmpty()) {
      throw invalid(what, errors);
    }
  }

  /**
   * The {@link CallError} a failure stands for: the first {@code CallError} in its cause chain
   * (wherever it sits: under a {@link CompletionException}, an {@link ExecutionException}, or a
   * library's own wrapper), else a new one with the {@code fallback} code and {@code message} that
   * keeps the failure as its local cause. The message is what crosses the wire, so it should say
   * what failed without quoting the cause.
   */
  public static CallError from(Throwable failure, ErrorCode fallback, String message) {
    Objects.requireNonNull(fallback, "fallback");
    Objects.requireNonNull(message, "message");
    return from(failure, cause -> of(fallback, message, cause));
  }

  /**
   * Like {@link #from(Throwable, ErrorCode, String)}, for a site that maps some failures itself:
   * when the chain holds no {@code CallError}, {@code fallback} gets the failure without its {@link
   * CompletionException} and {@link ExecutionException} wrappers (an {@code IOException}, say) and
   * says what it means.
   */
  public static CallError from(Throwable failure, Function<Throwable, CallError> fallback) {
    Objects.requireNonNull(failure, "failure");
    Objects.requireNonNull(fallback, "fallback");
    Throwable unwrapped = null;
    // A cause chain can loop (initCause only refuses a throwable as its own cause).
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof CallError callError) {
        return callError;
      }
      if (unwrapped == null && !isWrapper(t)) {
        unwrapped = t;
      }
    }
    return Objects.requireNonNull(
        fallback.apply(unwrapped != null ? unwrapped : failure), "the fallback's CallError");
  }

  /** The futures' wrappers that say only "the work failed", around the failure itself. */
  private static boolean isWrapper(Throwable t) {
    return (t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null;
  }

  public static Builder builder(ErrorCode code, String message) {
    return new Builder(code, message);
  }

  public ErrorCode code() {
    return code;
  }

  /** Whether trying the same call again may succeed. */
  public boolean retryable() {
    return retryable;
  }

  /** Machine-readable details that travel with the error, when there are any. */
  public Optional<JsonNode> details() {
    return Optional.ofNullable(details);
  }

  /** For {@link ErrorCode#INVALID_INPUT}: every schema error; otherwise empty. */
  public List<SchemaError> validationErrors() {
    return validationErrors;
  }

  /**
   * The error object every surface writes for a failed call: {@code {code, message, retryable,
   * details}}, nothing else (no cause, no stack trace). An INVALID_INPUT without details of its own
   * carries its schema errors as {@code details.errors}, each {@code {instancePath, keyword,
   * message}} (the first {@value #MAX_LISTED_SCHEMA_ERRORS}, then {@code details.truncated}). The
   * protocol's {@code call.error}, the HTTP gateway's error body, the MCP server's {@code _meta}
   * and {@code ops --json} are this object.
   */
  public ObjectNode toJson() {
    ObjectNode json = Json.nodes().objectNode();
    json.put("code", code.name());
    json.put("message", getMessage());
    json.put("retryable", retryable);
    if (details != null) {
      json.set("details", details);
    } else if (!validationErrors.isEmpty()) {
      ObjectNode listed = json.putObject("details");
      ArrayNode errors = listed.putArray("errors");
      for (SchemaError schemaError : validationErrors) {
        if (errors.size() == MAX_LISTED_SCHEMA_ERRORS) {
          listed.put("truncated", true);
          break;
        }
        errors
            .addObject()
            .put("instancePath", schemaError.instancePath())
            .put("keyword", schemaError.keyword())
            .put("message", schemaError.message());
      }
    }
    return json;
  }

  /** The most schema errors {@link #toJson()} lists. */
  private static final int MAX_LISTED_SCHEMA_ERRORS = 100;

  @Override
  public String toString() {
    return "CallError[" + code + "]: " + getMessage();
  }

  /** Builds a {@link CallError}; the retryable flag defaults to the code's. */
  public static final class Builder {
    private final ErrorCode code;
    private final String message;
    private boolean retryable;
    private JsonNode details;
    private List<SchemaError> validationErrors = List.of();
    private Throwable cause;

    private Builder(ErrorCode code, String message) {
      this.code = Objects.requireNonNull(code, "code");
      this.message = Objects.requireNonNull(message, "message");
      this.retryable = code.retryableByDefault();
    }

    public Builder retryable(boolean retryable) {
      this.retryable = retryable;
      return this;
    }

    public Builder details(JsonNode details) {
      this.details = Objects.requireNonNull(details, "details");
      return this;
    }

    public Builder validationErrors(List<SchemaError> errors) {
      this.validationErrors = List.copyOf(errors);
      return this;
    }

    public Builder cause(Throwable cause) {
      this.cause = Objects.requireNonNull(cause, "cause");
      return this;
    }

    public CallError build() {
      return new CallError(code, message, retryable, details, validationErrors, cause);
    }
  }
}
