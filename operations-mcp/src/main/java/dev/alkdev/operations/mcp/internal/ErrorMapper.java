package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportException;
import io.modelcontextprotocol.spec.McpTransportSessionClosedException;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/** Maps what the SDK throws to a {@link CallError}; the table is in docs/mcp.md. */
public final class ErrorMapper {
  private ErrorMapper() {}

  public static CallError map(Throwable error, String what) {
    return CallError.from(error, e -> mapOther(e, what));
  }

  /** A failure without a CallError in its chain: the SDK's exceptions, by kind. */
  private static CallError mapOther(Throwable e, String what) {
    if (e instanceof McpError mcp && mcp.getJsonRpcError() != null) {
      McpSchema.JSONRPCResponse.JSONRPCError rpc = mcp.getJsonRpcError();
      int code = rpc.code() == null ? 0 : rpc.code();
      String message =
          what + ": " + rpc.message() + " (JSON-RPC error " + code + dataOf(rpc.data()) + ")";
      String lower = String.valueOf(rpc.message()).toLowerCase(Locale.ROOT);
      ErrorCode mapped;
      if (StdioProcessTransport.RESOURCE_EXHAUSTED_MARK.equals(rpc.data())) {
        mapped = ErrorCode.RESOURCE_EXHAUSTED; // a line we could not take, not the server's word
      } else if (code == McpSchema.ErrorCodes.METHOD_NOT_FOUND
          || (code == McpSchema.ErrorCodes.INVALID_PARAMS
              && (lower.contains("unknown tool") || lower.contains("not found")))) {
        mapped = ErrorCode.OPERATION_NOT_FOUND;
      } else if (code == McpSchema.ErrorCodes.INVALID_PARAMS) {
        mapped = ErrorCode.INVALID_INPUT;
      } else if (code == McpSchema.ErrorCodes.PARSE_ERROR
          || code == McpSchema.ErrorCodes.INVALID_REQUEST) {
        mapped = ErrorCode.PROTOCOL_ERROR;
      } else if (code == -32800) {
        mapped = ErrorCode.CANCELLED;
      } else {
        mapped = ErrorCode.EXECUTION_ERROR;
      }
      return CallError.of(mapped, message, e);
    }
    if (hasCause(e, TimeoutException.class)) {
      return CallError.of(ErrorCode.DEADLINE_EXCEEDED, what + ": no answer in time", e);
    }
    if (isTransport(e)) {
      return CallError.of(ErrorCode.UNAVAILABLE, what + ": " + describe(e), e);
    }
    return CallError.of(ErrorCode.EXECUTION_ERROR, what + ": " + describe(e), e);
  }

  /**
   * The error's data, when it has some, in a few hundred characters: what a server says beside the
   * message (the revisions it supports, the capability it needs) is often the useful part.
   */
  private static String dataOf(Object data) {
    if (data == null) {
      return "";
    }
    String json;
    try {
      json = ToolMapper.JSON.writeValueAsString(data);
    } catch (RuntimeException e) {
      return "";
    }
    return "; data " + (json.length() <= 300 ? json : json.substring(0, 300) + "...");
  }

  private static boolean isTransport(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException
          || t instanceof UncheckedIOException
          || t instanceof McpTransportException
          || t instanceof McpTransportSessionClosedException
          || t instanceof McpTransportSessionNotFoundException
          || t instanceof IllegalStateException) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    String said = message == null ? e.getClass().getSimpleName() : message;
    // The SDK wraps the reason in its own words ("Client failed to initialize by explicit API
    // call"): the root cause says which it was (connection refused, a 404, no such program).
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String rootMessage = root.getMessage();
    if (root == e || rootMessage == null || said.contains(rootMessage)) {
      return said;
    }
    return said + ": " + rootMessage;
  }
}
