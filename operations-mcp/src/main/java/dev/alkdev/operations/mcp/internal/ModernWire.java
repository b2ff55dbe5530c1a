package dev.alkdev.operations.mcp.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client's side of MCP 2026-07-28 on the wire: the metadata every request carries, the headers
 * that mirror the body ({@code Mcp-Method}, {@code Mcp-Name}, {@code Mcp-Param-*} from tools'
 * {@code x-mcp-header} annotations, with the {@code =?base64?...?=} form for values that are not
 * plain header text), and the probe answer that tells the server's era.
 */
final class ModernWire {
  static final String VERSION = "2026-07-28";
  static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
  static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

  /** MCP's tasks extension, declared in the client's capabilities. */
  static final String TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

  static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
  static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";
  static final String VERSION_HEADER = "MCP-Protocol-Version";
  static final String METHOD_HEADER = "Mcp-Method";
  static final String NAME_HEADER = "Mcp-Name";
  static final String PARAM_HEADER_PREFIX = "Mcp-Param-";

  /** The errors only a modern server gives; one of them identifies it as modern. */
  static final int HEADER_MISMATCH = -32020;

  static final int MISSING_CLIENT_CAPABILITY = -32021;
  static final int UNSUPPORTED_VERSION = -32022;

  /** The revisions before 2026-07-28 this client speaks through the SDK. */
  static final Set<String> LEGACY_VERSIONS = Set.of("2025-11-25", "2025-06-18", "2025-03-26");

  private ModernWire() {}

  /** A tool parameter mirrored into a header: where it is in the arguments, and its name. */
  record Param(List<String> path, String header) {}

  /**
   * Adds the revision's metadata to a request's params: the protocol version, the client's
   * capabilities and who it is (keys the caller already set stay).
   */
  static void addMeta(ObjectNode message, JsonNode capabilities, JsonNode clientInfo) {
    JsonNode params = message.get("params");
    ObjectNode paramsObject =
        params instanceof ObjectNode object ? object : message.putObject("params");
    JsonNode meta = paramsObject.get("_meta");
    ObjectNode metaObject =
        meta instanceof ObjectNode object ? object : paramsObject.putObject("_meta");
    metaObject.put(PROTOCOL_VERSION, VERSION);
    metaObject.set(CLIENT_CAPABILITIES, capabilities);
    metaObject.set(CLIENT_INFO, clientInfo);
  }

  /** The headers that mirror a modern request's body. */
  static Map<String, String> headers(ObjectNode message, Map<String, List<Param>> toolParams) {
    Map<String, String> headers = new LinkedHashMap<>();
    String method = message.path("method").asString("");
    headers.put(VERSION_HEADER, VERSION);
    headers.put(METHOD_HEADER, method);
    JsonNode params = message.path("params");
    String nameField =
        switch (method) {
          case "tools/call", "prompts/get" -> "name";
          case "resources/read" -> "uri";
          case "tasks/get", "tasks/update", "tasks/cancel" -> "taskId"; // the tasks extension
          default -> null;
        };
    if (nameField != null && params.get(nameField) != null && params.get(nameField).isString()) {
      String name = params.get(nameField).asString();
      headers.put(NAME_HEADER, encode(name));
      List<Param> mirrored = method.equals("tools/call") ? toolParams.get(name) : null;
      if (mirrored != null) {
        JsonNode arguments = params.path("arguments");
        for (Param param : mirrored) {
          JsonNode value = arguments;
          for (Iterator<String> it = param.path().iterator(); it.hasNext() && value != null; ) {
            value = value.get(it.next());
          }
          if (value == null || value.isNull() || value.isContainer()) {
            continue;
          }
          headers.put(PARAM_HEADER_PREFIX + param.header(), encode(value.asString()));
        }
      }
    }
    return headers;
  }

  /**
   * A value as header text: as it is when it is plain printable ASCII without surrounding
   * whitespace, else {@code =?base64?...?=} of its UTF-8 bytes (also for a plain value that looks
   * like that form, so it is not taken for one).
   */
  static String encode(String value) {
    boolean plain = !value.isEmpty() && value.strip().equals(value);
    for (int i = 0; plain && i < value.length(); i++) {
      char c = value.charAt(i);
      plain = c >= 0x20 && c < 0x7f;
    }
    if (plain && !(value.startsWith("=?base64?") && value.endsWith("?="))) {
      return value;
    }
    return "=?base64?"
        + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))
        + "?=";
  }

  /**
   * The parameters a tool's input schema mirrors into headers; empty when the tool has none, and a
   * reason when an annotation breaks the revision's rules (the tool must then be left out).
   */
  static ToolHeaders toolHeaders(JsonNode inputSchema) {
    List<Param> params = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    List<String> problems = new ArrayList<>();
    walk(inputSchema, new ArrayList<>(), true, params, seen, problems, 0);
    return new ToolHeaders(List.copyOf(params), problems.stream().findFirst());
  }

  /** A tool's mirrored parameters, or why its annotations are invalid. */
  record ToolHeaders(List<Param> params, Optional<String> invalid) {}

  private static void walk(
      JsonNode schema,
      List<String> path,
      boolean reachable,
      List<Param> params,
      Set<String> seen,
      List<String> problems,
      int depth) {
    if (depth > 64) {
      return;
    }
    if (schema.isArray()) {
      for (JsonNode item : schema) {
        walk(item, path, false, params, seen, problems, depth + 1);
      }
      return;
    }
    if (!schema.isObject()) {
      return;
    }
    JsonNode header = schema.get("x-mcp-header");
    if (header != null) {
      String where = path.isEmpty() ? "the schema's root" : String.join(".", path);
      String type = schema.path("type").asString("");
      if (!reachable || path.isEmpty()) {
        problems.add(
            "x-mcp-header at " + where + " is not on a property reached through properties");
      } else if (!header.isString() || !isToken(header.asString())) {
        problems.add("x-mcp-header at " + where + " is not a header name token");
      } else if (!(type.equals("string") || type.equals("integer") || type.equals("boolean"))) {
        problems.add(
            "x-mcp-header at "
                + where
                + " is on a "
                + (type.isEmpty() ? "untyped" : type)
                + " property, not a string, integer or boolean");
      } else if (!seen.add(header.asString().toLowerCase(Locale.ROOT))) {
        problems.add("x-mcp-header " + header.asString() + " is used twice");
      } else {
        params.add(new Param(List.copyOf(path), header.asString()));
      }
    }
    for (Map.Entry<String, JsonNode> entry : schema.properties()) {
      String key = entry.getKey();
      if (key.equals("properties") && entry.getValue().isObject()) {
        for (Map.Entry<String, JsonNode> property : entry.getValue().properties()) {
          List<String> at = new ArrayList<>(path);
          at.add(property.getKey());
          walk(property.getValue(), at, reachable, params, seen, problems, depth + 1);
        }
      } else if (entry.getValue().isContainer() && !key.equals("x-mcp-header")) {
        walk(entry.getValue(), path, false, params, seen, problems, depth + 1);
      }
    }
  }

  private static boolean isToken(String value) {
    if (value.isEmpty()) {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      boolean tchar =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!tchar) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether an error answer comes from a modern server: one of the errors only the 2026-07-28
   * revision defines.
   */
  static boolean isModernError(JsonNode answer) {
    int code = answer.path("error").path("code").asInt(0);
    return code == HEADER_MISMATCH
        || code == MISSING_CLIENT_CAPABILITY
        || code == UNSUPPORTED_VERSION;
  }
}
