package dev.alkdev.operations.mcpserver.internal;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * MCP 2026-07-28's request headers that mirror the body: {@code Mcp-Name} and the {@code
 * Mcp-Param-{name}} headers of tool parameters annotated {@code x-mcp-header}. A value that is not
 * plain header-safe ASCII travels as {@code =?base64?...?=}; a server decodes it and checks that
 * every mirrored value matches the body, so nothing routes on one value and runs on another.
 */
final class HeaderValues {
  static final String PARAM_HEADER_PREFIX = "Mcp-Param-";
  private static final String SENTINEL_START = "=?base64?";
  private static final String SENTINEL_END = "?=";

  /** One annotated parameter: where it is in the arguments, its header's name, its type. */
  record Param(List<String> path, String header, String type) {}

  private HeaderValues() {}

  /**
   * The annotated parameters of an input schema: properties reached from the root through {@code
   * properties} alone, of a primitive type (string, integer, boolean), as the revision allows.
   */
  static List<Param> params(JsonNode inputSchema) {
    List<Param> params = new ArrayList<>();
    collect(inputSchema, new ArrayList<>(), params, 0);
    return List.copyOf(params);
  }

  private static void collect(JsonNode schema, List<String> path, List<Param> into, int depth) {
    JsonNode properties = schema.get("properties");
    if (properties == null || !properties.isObject() || depth > 32) {
      return;
    }
    for (Map.Entry<String, JsonNode> property : properties.properties()) {
      JsonNode value = property.getValue();
      if (!value.isObject()) {
        continue;
      }
      List<String> at = new ArrayList<>(path);
      at.add(property.getKey());
      JsonNode header = value.get("x-mcp-header");
      String type = value.path("type").asString("");
      if (header != null
          && header.isString()
          && isToken(header.asString())
          && (type.equals("string") || type.equals("integer") || type.equals("boolean"))) {
        into.add(new Param(List.copyOf(at), header.asString(), type));
      }
      collect(value, at, into, depth + 1);
    }
  }

  /**
   * What is wrong with a request's {@code Mcp-Param-*} headers against its arguments, if anything.
   * A parameter given (and not null) needs its header with the same value; one not given needs
   * none.
   */
  static Optional<String> paramMismatch(
      List<Param> params, JsonNode arguments, Function<String, String> headers) {
    for (Param param : params) {
      JsonNode value = arguments;
      for (Iterator<String> it = param.path().iterator(); it.hasNext() && value != null; ) {
        value = value.get(it.next());
      }
      if (value == null || value.isNull()) {
        continue;
      }
      String name = PARAM_HEADER_PREFIX + param.header();
      String raw = headers.apply(name);
      if (raw == null) {
        return Optional.of(name + " is required: the argument it mirrors is given");
      }
      Optional<String> decoded = decode(raw);
      if (decoded.isEmpty()) {
        return Optional.of(name + " is not valid: its =?base64?...?= value does not decode");
      }
      if (!matches(decoded.get(), value, param.type())) {
        return Optional.of(name + " does not match the argument it mirrors");
      }
    }
    return Optional.empty();
  }

  private static boolean matches(String header, JsonNode value, String type) {
    switch (type) {
      case "integer" -> {
        if (!value.isNumber()) {
          return false;
        }
        try {
          return new BigDecimal(header).compareTo(value.decimalValue()) == 0;
        } catch (NumberFormatException e) {
          return false;
        }
      }
      case "boolean" -> {
        return value.isBoolean() && header.equals(Boolean.toString(value.asBoolean()));
      }
      default -> {
        return value.isString() && header.equals(value.asString());
      }
    }
  }

  /**
   * A header's value: surrounding whitespace trimmed, and a {@code =?base64?...?=} value decoded
   * (strictly: padded, the standard alphabet, UTF-8). Empty when it is such a value and does not
   * decode.
   */
  static Optional<String> decode(String raw) {
    String value = raw.strip();
    if (!(value.startsWith(SENTINEL_START)
        && value.endsWith(SENTINEL_END)
        && value.length() >= SENTINEL_START.length() + SENTINEL_END.length())) {
      return Optional.of(value);
    }
    String encoded =
        value.substring(SENTINEL_START.length(), value.length() - SENTINEL_END.length());
    if (encoded.length() % 4 != 0) {
      return Optional.empty();
    }
    try {
      byte[] bytes = Base64.getDecoder().decode(encoded);
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString());
    } catch (IllegalArgumentException | CharacterCodingException e) {
      return Optional.empty();
    }
  }

  /** An HTTP field-name token (RFC 9110 tchar), as an {@code x-mcp-header} value must be. */
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
}
