package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationSpec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads a call's input: a JSON body, or a query string (a URL-encoded JSON {@code input}, or plain
 * fields for a flat object input, converted by the input schema's property types).
 */
public final class Inputs {
  /** Deeper JSON is refused before it reaches validation (where depth costs stack). */
  public static final int MAX_NESTING_DEPTH = 128;

  /** The query parameter holding the whole input as JSON. */
  public static final String INPUT_PARAMETER = "input";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  static final JsonMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
                  .build())
          .build();

  private Inputs() {}

  /**
   * The body as JSON; empty for an empty body, which is no input (the serving pipeline then applies
   * the operation's no-input rule).
   */
  public static Optional<JsonNode> body(byte[] bytes) {
    if (bytes.length == 0) {
      return Optional.empty();
    }
    return Optional.of(parse(bytes, "request body"));
  }

  /**
   * The input from the query's parameters; empty when there are none, which is no input (the
   * serving pipeline then applies the operation's no-input rule).
   */
  public static Optional<JsonNode> query(Map<String, List<String>> parameters, OperationSpec spec) {
    List<String> input = parameters.get(INPUT_PARAMETER);
    if (input != null) {
      if (parameters.size() > 1) {
        throw invalid(
            "Give the input either as the JSON parameter 'input' or as plain fields, not both");
      }
      if (input.size() != 1) {
        throw invalid("The parameter 'input' is given " + input.size() + " times");
      }
      return Optional.of(
          parse(
              input.get(0).getBytes(java.nio.charset.StandardCharsets.UTF_8), "parameter 'input'"));
    }
    if (parameters.isEmpty()) {
      return Optional.empty();
    }
    JsonNode properties = spec.inputSchema().json().path("properties");
    ObjectNode object = NODES.objectNode();
    for (Map.Entry<String, List<String>> field : parameters.entrySet()) {
      JsonNode property = properties.path(field.getKey());
      List<String> values = field.getValue();
      if (types(property).contains("array")) {
        ArrayNode array = object.putArray(field.getKey());
        for (String value : values) {
          array.add(scalar(value, property.path("items")));
        }
      } else if (values.size() == 1) {
        object.set(field.getKey(), scalar(values.get(0), property));
      } else {
        throw invalid(
            "The parameter '"
                + printable(field.getKey())
                + "' is given "
                + values.size()
                + " times");
      }
    }
    return Optional.of(object);
  }

  /**
   * A query value as the JSON its property's type asks for; a value that does not convert stays a
   * string, so validation names the field and what was expected.
   */
  private static JsonNode scalar(String value, JsonNode property) {
    List<String> types = types(property);
    for (String type : types) {
      switch (type) {
        case "integer" -> {
          try {
            return NODES.numberNode(new BigInteger(value));
          } catch (NumberFormatException e) {
            // try the next type
          }
        }
        case "number" -> {
          try {
            BigDecimal number = new BigDecimal(value);
            return NODES.numberNode(number);
          } catch (NumberFormatException e) {
            // try the next type
          }
        }
        case "boolean" -> {
          if (value.equals("true") || value.equals("false")) {
            return NODES.booleanNode(Boolean.parseBoolean(value));
          }
        }
        case "null" -> {
          if (value.isEmpty() || value.equals("null")) {
            return NullNode.getInstance();
          }
        }
        default -> {}
      }
    }
    return NODES.stringNode(value);
  }

  private static List<String> types(JsonNode property) {
    JsonNode type = property.path("type");
    if (type.isString()) {
      return List.of(type.asString());
    }
    if (type.isArray()) {
      java.util.ArrayList<String> list = new java.util.ArrayList<>();
      type.forEach(t -> list.add(t.asString("")));
      return list;
    }
    return List.of();
  }

  private static JsonNode parse(byte[] bytes, String what) {
    try {
      JsonNode node = JSON.readTree(bytes);
      return node == null || node.isMissingNode() ? NullNode.getInstance() : node;
    } catch (JacksonException e) {
      String reason = e.getOriginalMessage();
      if (reason != null && reason.length() > 200) {
        reason = reason.substring(0, 200) + "...";
      }
      throw invalid("The " + what + " is not valid JSON: " + printable(String.valueOf(reason)));
    }
  }

  static CallError invalid(String message) {
    return Errors.of(ErrorCode.INVALID_INPUT, message);
  }

  /** Control characters shown escaped, length cut: user text goes back into messages safely. */
  public static String printable(String text) {
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .limit(140)
        .forEach(
            cp -> {
              if (cp < 0x20 || cp == 0x7f) {
                out.append(String.format("\\u%04x", cp));
              } else {
                out.appendCodePoint(cp);
              }
            });
    if (text.codePointCount(0, text.length()) > 140) {
      out.append("...");
    }
    return out.toString();
  }
}
