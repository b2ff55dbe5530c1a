package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Request bodies in {@code application/x-www-form-urlencoded} and {@code multipart/form-data}
 * (decision D51): each property of the input's {@code body} object is one form field. A field whose
 * schema is a binary string ({@code format: binary}, Swagger 2.0's {@code type: file}) is given as
 * base64 text in the JSON input (or, from Java, a binary node) and sent as raw bytes, as a file
 * part named after the field in multipart.
 */
final class FormBodies {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final SecureRandom RANDOM = new SecureRandom();

  static final String URLENCODED = "application/x-www-form-urlencoded";
  static final String MULTIPART = "multipart/form-data";

  private FormBodies() {}

  /** How one form field is written: from the schema and the media type's {@code encoding}. */
  record Field(
      String name, boolean binary, String style, boolean explode, Optional<String> contentType) {}

  static boolean isForm(String media) {
    String m = media.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    return m.equals(URLENCODED) || m.equals(MULTIPART);
  }

  /** An encoded body and its Content-Type (with the boundary for multipart). */
  record Encoded(String contentType, byte[] bytes) {}

  static Encoded encode(String media, JsonNode body, Map<String, Field> fields) {
    if (!body.isObject()) {
      throw CallError.of(
          ErrorCode.INVALID_INPUT, "a " + media + " body must be an object of form fields");
    }
    return media.startsWith(MULTIPART) ? multipart(body, fields) : urlencoded(body, fields);
  }

  private static Encoded urlencoded(JsonNode body, Map<String, Field> fields) {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, JsonNode> entry : body.properties()) {
      JsonNode value = entry.getValue();
      if (value.isNull()) {
        continue;
      }
      Field field = fields.getOrDefault(entry.getKey(), plain(entry.getKey()));
      String name = formEncode(entry.getKey());
      if (value.isArray()) {
        List<String> items = new ArrayList<>();
        for (JsonNode item : value) {
          items.add(formEncode(fieldText(field, item)));
        }
        if (field.explode()) {
          items.forEach(item -> ParamStyles.append(out, name, item));
        } else {
          ParamStyles.append(out, name, String.join(formEncode(separator(field.style())), items));
        }
      } else {
        ParamStyles.append(out, name, formEncode(fieldText(field, value)));
      }
    }
    return new Encoded(URLENCODED, out.toString().getBytes(StandardCharsets.US_ASCII));
  }

  private static Encoded multipart(JsonNode body, Map<String, Field> fields) {
    String boundary = "ops-" + HexFormat.of().formatHex(randomBytes());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Map.Entry<String, JsonNode> entry : body.properties()) {
      JsonNode value = entry.getValue();
      if (value.isNull()) {
        continue;
      }
      Field field = fields.getOrDefault(entry.getKey(), plain(entry.getKey()));
      // Arrays are one part per item (RFC 7578 section 4.3), whatever the style.
      Iterable<JsonNode> items = value.isArray() ? value : List.of(value);
      for (JsonNode item : items) {
        part(out, boundary, field, item);
      }
    }
    write(out, "--" + boundary + "--\r\n");
    return new Encoded(MULTIPART + "; boundary=" + boundary, out.toByteArray());
  }

  private static void part(
      ByteArrayOutputStream out, String boundary, Field field, JsonNode value) {
    String name = quoted(field.name());
    write(out, "--" + boundary + "\r\n");
    byte[] bytes;
    String type;
    if (value.isBinary() || (field.binary() && value.isString())) {
      bytes = bytes(field.name(), value);
      type = field.contentType().orElse("application/octet-stream");
      write(
          out,
          "Content-Disposition: form-data; name=\"" + name + "\"; filename=\"" + name + "\"\r\n");
    } else {
      write(out, "Content-Disposition: form-data; name=\"" + name + "\"\r\n");
      if (value.isContainer()) {
        bytes = JSON.writeValueAsBytes(value);
        type = field.contentType().orElse("application/json");
      } else {
        bytes = ParamStyles.text(value).getBytes(StandardCharsets.UTF_8);
        type = field.contentType().orElse("text/plain; charset=UTF-8");
      }
    }
    HttpOperation.checkHeaderValue("form field content type", type);
    write(out, "Content-Type: " + type + "\r\n\r\n");
    out.writeBytes(bytes);
    write(out, "\r\n");
  }

  private static String fieldText(Field field, JsonNode value) {
    if (value.isBinary() || (field.binary() && value.isString())) {
      // urlencoded carries text: the decoded bytes, read as UTF-8 (binary is what multipart is for)
      return new String(bytes(field.name(), value), StandardCharsets.UTF_8);
    }
    return ParamStyles.text(value);
  }

  /** A file's bytes: a binary node (a Java caller's byte[]) as is, a string as base64. */
  private static byte[] bytes(String name, JsonNode value) {
    if (value.isBinary()) {
      return value.binaryValue();
    }
    try {
      // Strict (the MIME decoder skips junk silently); line breaks allowed, base64url accepted.
      String text = value.asString().replaceAll("[\\r\\n\\t ]", "");
      return text.indexOf('-') >= 0 || text.indexOf('_') >= 0
          ? Base64.getUrlDecoder().decode(text)
          : Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw CallError.of(
          ErrorCode.INVALID_INPUT,
          "form field '" + name + "' is a file: give its bytes as base64 (" + e.getMessage() + ")");
    }
  }

  private static String separator(String style) {
    return switch (style) {
      case "spaceDelimited" -> " ";
      case "pipeDelimited" -> "|";
      case "tabDelimited" -> "\t";
      default -> ",";
    };
  }

  private static Field plain(String name) {
    return new Field(name, false, "form", true, Optional.empty());
  }

  /** A field name in a quoted header parameter: CR and LF refused, quotes percent-encoded. */
  private static String quoted(String name) {
    HttpOperation.checkHeaderValue("form field name", name);
    return name.replace("\"", "%22");
  }

  /** application/x-www-form-urlencoded: spaces as +, the rest as UriEncoding.component. */
  private static String formEncode(String text) {
    return UriEncoding.component(text).replace("%20", "+");
  }

  private static byte[] randomBytes() {
    byte[] bytes = new byte[12];
    RANDOM.nextBytes(bytes);
    return bytes;
  }

  private static void write(ByteArrayOutputStream out, String text) {
    out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
  }
}
