package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.util.Optional;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one error shape and the one table from {@link ErrorCode} to HTTP status. The body is {@code
 * {"error": {code, message, retryable, details}}}: the call protocol's {@code call.error} object,
 * so an INVALID_INPUT lists every field error under {@code details.errors} the same way.
 */
public final class Errors {
  private Errors() {}

  /** The status a call error is answered with. */
  public static int status(CallError error) {
    return switch (error.code()) {
      case INVALID_INPUT -> 400;
      case UNAUTHENTICATED -> 401;
      case ACCESS_DENIED -> 403;
      case OPERATION_NOT_FOUND -> 404;
      case RESOURCE_EXHAUSTED -> isTooLarge(error) ? 413 : 429;
      // The client's own cancellation: it is gone, but logs and proxies see why the call ended.
      case CANCELLED -> 499;
      case EXECUTION_ERROR -> 500;
      // A peer behind the gateway broke the call protocol: a bad gateway, not a bad request.
      case PROTOCOL_ERROR -> 502;
      case UNAVAILABLE, NO_RESPONDERS -> 503;
      case DEADLINE_EXCEEDED -> 504;
    };
  }

  /** The gateway's own size refusal is 413 rather than 429: retrying it cannot help. */
  private static boolean isTooLarge(CallError error) {
    return error
        .details()
        .map(d -> d.path("limit").asString("").equals("maxRequestBytes"))
        .orElse(false);
  }

  /**
   * The {@code Retry-After} a refusal is answered with: one second for an error worth retrying soon
   * (a full server, a caller over its share, a peer unavailable or absent); none otherwise.
   */
  public static Optional<String> retryAfterSeconds(CallError error) {
    boolean soon =
        switch (error.code()) {
          case RESOURCE_EXHAUSTED -> error.retryable();
          case UNAVAILABLE, NO_RESPONDERS -> true;
          default -> false;
        };
    return soon ? Optional.of("1") : Optional.empty();
  }

  /** The body: {@code {"error": {...}}}. */
  public static ObjectNode body(CallError error) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.set("error", error.toJson());
    return body;
  }

  /** A request the gateway refuses itself, before the pipeline sees it. */
  public static CallError of(ErrorCode code, String message) {
    return CallError.builder(code, message).retryable(false).build();
  }

  /** The request body is over the cap: 413, with the limit named. */
  public static CallError tooLarge(long max) {
    ObjectNode details = JsonNodeFactory.instance.objectNode();
    details.put("limit", "maxRequestBytes");
    details.put("maxBytes", max);
    return CallError.builder(
            ErrorCode.RESOURCE_EXHAUSTED, "The request body is larger than " + max + " bytes")
        .retryable(false)
        .details(details)
        .build();
  }
}
