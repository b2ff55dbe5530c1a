package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** JSON-RPC building blocks: one mapper, messages and errors. */
final class Json {
  static final JsonMapper MAPPER = JsonMapper.builder().build();
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  // JSON-RPC 2.0 and MCP error codes.
  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL_ERROR = -32603;
  static final int REQUEST_CANCELLED = -32800;
  // Server-defined (-32000..-32099): refusals of the serving pipeline that are no tool result.
  static final int UNAUTHENTICATED = -32001;
  static final int ACCESS_DENIED = -32003;

  private Json() {}

  static ObjectNode object() {
    return NODES.objectNode();
  }

  static byte[] bytes(JsonNode node) {
    return MAPPER.writeValueAsBytes(node);
  }

  static String text(JsonNode node) {
    return MAPPER.writeValueAsString(node);
  }

  /** Reads one message; a syntax error is a CallError so callers answer -32700. */
  static JsonNode read(byte[] bytes, int offset, int length) {
    try {
      return MAPPER.readTree(bytes, offset, length);
    } catch (JacksonException e) {
      throw CallError.of(ErrorCode.PROTOCOL_ERROR, "Parse error: " + e.getOriginalMessage());
    }
  }

  static ObjectNode result(JsonNode id, JsonNode result) {
    ObjectNode message = object();
    message.put("jsonrpc", "2.0");
    message.set("id", id);
    message.set("result", result);
    return message;
  }

  static ObjectNode error(JsonNode id, int code, String text, JsonNode data) {
    ObjectNode message = object();
    message.put("jsonrpc", "2.0");
    message.set("id", id == null ? NODES.nullNode() : id);
    ObjectNode error = message.putObject("error");
    error.put("code", code);
    error.put("message", text);
    if (data != null) {
      error.set("data", data);
    }
    return message;
  }

  static ObjectNode notification(String method, ObjectNode params) {
    ObjectNode message = object();
    message.put("jsonrpc", "2.0");
    message.put("method", method);
    if (params != null) {
      message.set("params", params);
    }
    return message;
  }
}
