package dev.alkdev.operations.springai;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;

/**
 * Failed calls as the text a model reads in a tool response: {@code error CODE: what happened},
 * then what the model can do about it. The message is the {@link CallError}'s own, which never
 * quotes a handler's exception (that stays in the application's log).
 */
final class ToolErrors {
  /** The schema errors listed; a model fixes the first few and meets the rest on the next try. */
  private static final int MAX_LISTED = 10;

  /** Enough of a JSON parser's message to find the mistake, not a copy of a huge argument. */
  private static final int MAX_PARSER_MESSAGE = 200;

  private ToolErrors() {}

  static String text(CallError error, boolean wrapped) {
    String what =
        error.code() == ErrorCode.INVALID_INPUT && !error.validationErrors().isEmpty()
            ? "input is invalid: " + listed(error.validationErrors(), wrapped)
            : error.getMessage();
    return "error " + error.code() + ": " + sentence(what) + " " + advice(error);
  }

  /** Arguments that are not JSON: the model wrote them, so it can write them again. */
  static String malformed(JacksonException e) {
    String problem = e.getOriginalMessage();
    if (problem == null || problem.isBlank()) {
      problem = "not JSON";
    } else if (problem.length() > MAX_PARSER_MESSAGE) {
      problem = problem.substring(0, MAX_PARSER_MESSAGE) + "...";
    }
    return "error "
        + ErrorCode.INVALID_INPUT
        + ": the arguments are not valid JSON ("
        + problem.replace('\n', ' ')
        + where(e.getLocation())
        + "). Send the arguments as one JSON object matching the tool's input schema and call"
        + " again.";
  }

  private static String sentence(String text) {
    return text.endsWith(".") ? text : text + ".";
  }

  private static String where(TokenStreamLocation location) {
    return location == null || location.getLineNr() < 1
        ? ""
        : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  private static String listed(List<SchemaError> errors, boolean wrapped) {
    StringBuilder text = new StringBuilder();
    int shown = 0;
    for (SchemaError error : errors) {
      if (shown == MAX_LISTED) {
        text.append(" (and ").append(errors.size() - MAX_LISTED).append(" more)");
        break;
      }
      // Paths are the operation's; a wrapped tool's model wrote them under "input".
      String path =
          wrapped ? "/" + ToolInputSchema.PROPERTY + error.instancePath() : error.instancePath();
      text.append(shown++ == 0 ? "" : "; ")
          .append(path.isEmpty() ? "(root)" : path)
          .append(": ")
          .append(error.message());
    }
    return text.toString();
  }

  private static String advice(CallError error) {
    switch (error.code()) {
      case INVALID_INPUT:
        return "Fix the arguments to match the tool's input schema and call again.";
      case OPERATION_NOT_FOUND:
        return "This tool is not available now; do not call it again.";
      case ACCESS_DENIED:
      case UNAUTHENTICATED:
        return "The user may not use this tool; do not call it again, tell the user instead.";
      case DEADLINE_EXCEEDED:
        return "It took too long; call again later or with a smaller request.";
      case CANCELLED:
        return "The call was cancelled; do not call again unless the user asks.";
      default:
        return error.retryable()
            ? "This may be temporary; you may call the tool again."
            : "Calling again with the same arguments will likely fail the same way.";
    }
  }
}
