package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.mcpserver.McpLogLevel;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * MCP's modern revision (2026-07-28): no handshake and no session; every request carries its
 * protocol version and the client's capabilities in {@code params._meta}. This class holds the
 * rules of that metadata, the errors the revision defines for it, and how a request of either era
 * is told apart, for every transport.
 */
final class Modern {
  static final String VERSION = "2026-07-28";

  /** Every revision this server speaks, newest first: discover's and -32022's list. */
  static final List<String> SUPPORTED = List.of(VERSION, "2025-11-25", "2025-06-18");

  static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
  static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
  static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
  static final String LOG_LEVEL = "io.modelcontextprotocol/logLevel";
  static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";
  static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

  // The revision's own errors (the range -32020..-32099 is the specification's).
  static final int HEADER_MISMATCH = -32020;
  static final int MISSING_CLIENT_CAPABILITY = -32021;

  /** The revision's -32021: what the request lacks, as {@code data.requiredCapabilities}. */
  static ObjectNode missingCapability(JsonNode id, String message, ObjectNode required) {
    ObjectNode data = Json.object();
    data.set("requiredCapabilities", required);
    return Json.error(id, MISSING_CLIENT_CAPABILITY, message, data);
  }

  static final int UNSUPPORTED_VERSION = -32022;

  /** The legacy revisions, whose clients open with initialize and hold a session. */
  private static final Set<String> LEGACY = Set.copyOf(Protocol.HEADER_VERSIONS);

  private Modern() {}

  /** A modern request's metadata, checked. */
  record Meta(String protocolVersion, JsonNode clientCapabilities, Optional<McpLogLevel> logLevel) {
    boolean hasCapability(String name) {
      JsonNode capability = clientCapabilities.get(name);
      return capability != null && capability.isObject();
    }
  }

  /** Why a modern request is refused before it is served: its error and the HTTP status. */
  record Refusal(int status, ObjectNode error) {}

  /**
   * Whether a message belongs to the modern era. A session id means legacy (only legacy servers
   * mint them). Otherwise the message is modern when its version header names no legacy revision,
   * or when its metadata names a protocol version at all; a legacy initialize carries neither. An
   * unknown version is modern, so it gets the revision's -32022 with the supported list.
   *
   * @param versionHeader the {@code MCP-Protocol-Version} header, null where there is none (stdio)
   */
  static boolean isModern(boolean hasSession, String versionHeader, JsonNode message) {
    if (hasSession) {
      return false;
    }
    if (versionHeader != null && !LEGACY.contains(versionHeader)) {
      return true;
    }
    return message.path("params").path("_meta").has(PROTOCOL_VERSION);
  }

  /**
   * Checks a modern request's {@code _meta}: the protocol version and the client's capabilities are
   * required (client info is optional). Empty when they are well-formed.
   */
  static Optional<Refusal> checkMeta(JsonNode id, JsonNode message) {
    JsonNode meta = message.path("params").path("_meta");
    if (!meta.isObject()) {
      return invalidMeta(id, "params._meta is required: it carries " + PROTOCOL_VERSION);
    }
    JsonNode version = meta.get(PROTOCOL_VERSION);
    if (version == null || !version.isString() || version.asString().isEmpty()) {
      return invalidMeta(id, "params._meta." + PROTOCOL_VERSION + " must be a non-empty string");
    }
    JsonNode capabilities = meta.get(CLIENT_CAPABILITIES);
    if (capabilities == null || !capabilities.isObject()) {
      return invalidMeta(id, "params._meta." + CLIENT_CAPABILITIES + " must be an object");
    }
    JsonNode info = meta.get(CLIENT_INFO);
    if (info != null && !info.isObject()) {
      return invalidMeta(id, "params._meta." + CLIENT_INFO + " must be an object");
    }
    JsonNode level = meta.get(LOG_LEVEL);
    if (level != null && McpLogLevel.fromWire(level.asString("")).isEmpty()) {
      return invalidMeta(
          id,
          "params._meta."
              + LOG_LEVEL
              + " must be one of debug, info, notice, warning, error, critical, alert, emergency");
    }
    return Optional.empty();
  }

  /** The checked metadata of a request {@link #checkMeta} accepted. */
  static Meta meta(JsonNode message) {
    JsonNode meta = message.path("params").path("_meta");
    JsonNode level = meta.get(LOG_LEVEL);
    return new Meta(
        meta.get(PROTOCOL_VERSION).asString(),
        meta.get(CLIENT_CAPABILITIES),
        level == null ? Optional.empty() : McpLogLevel.fromWire(level.asString("")));
  }

  /** -32022 for a version this server does not speak in the modern way; empty when it does. */
  static Optional<Refusal> checkVersion(JsonNode id, String requested) {
    if (VERSION.equals(requested)) {
      return Optional.empty();
    }
    return Optional.of(unsupportedVersion(id, requested));
  }

  static Refusal unsupportedVersion(JsonNode id, String requested) {
    ObjectNode data = Json.object();
    data.put("requested", requested);
    data.set("supported", supportedList());
    return new Refusal(
        400,
        Json.error(
            id,
            UNSUPPORTED_VERSION,
            "Unsupported protocol version "
                + printable(requested)
                + "; supported: "
                + String.join(", ", SUPPORTED),
            data));
  }

  static Refusal headerMismatch(JsonNode id, String message) {
    return new Refusal(400, Json.error(id, HEADER_MISMATCH, "Header mismatch: " + message, null));
  }

  static tools.jackson.databind.node.ArrayNode supportedList() {
    tools.jackson.databind.node.ArrayNode list = Json.NODES.arrayNode();
    SUPPORTED.forEach(list::add);
    return list;
  }

  /**
   * A modern result as the revision requires: {@code resultType} (complete unless the result says
   * otherwise) and the server's identity in its {@code _meta}.
   */
  static ObjectNode complete(ObjectNode response, ObjectNode serverInfo) {
    JsonNode result = response.get("result");
    if (result instanceof ObjectNode object) {
      if (!object.has("resultType")) {
        object.put("resultType", "complete");
      }
      JsonNode meta = object.get("_meta");
      ObjectNode metaObject =
          meta instanceof ObjectNode existing ? existing : object.putObject("_meta");
      metaObject.set(SERVER_INFO, serverInfo);
    }
    return response;
  }

  /** The HTTP status a modern error response goes with. */
  static int statusOf(ObjectNode response) {
    JsonNode error = response.get("error");
    if (error == null) {
      return 200;
    }
    int code = error.path("code").asInt(0);
    if (code == Json.METHOD_NOT_FOUND) {
      return 404;
    }
    if (code == Listens.OVERLOADED) {
      return 429;
    }
    if (code == HEADER_MISMATCH
        || code == MISSING_CLIENT_CAPABILITY
        || code == UNSUPPORTED_VERSION) {
      return 400;
    }
    return 200;
  }

  private static Optional<Refusal> invalidMeta(JsonNode id, String message) {
    return Optional.of(new Refusal(400, Json.error(id, Json.INVALID_PARAMS, message, null)));
  }

  /** A client's value in an error message: at most 64 printable characters. */
  static String printable(String value) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length() && out.length() < 64; i++) {
      char c = value.charAt(i);
      out.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return value.length() > 64 ? out + "..." : out.toString();
  }
}
