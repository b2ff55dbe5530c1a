package dev.alkdev.operations.openapi.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** OpenAPI parameter serialisation (style and explode) for query, header and path values. */
final class ParamStyles {
  private ParamStyles() {}

  /** A primitive as text: strings raw, numbers and booleans as JSON writes them. */
  static String text(JsonNode value) {
    if (value.isString()) {
      return value.asString();
    }
    if (value.isValueNode()) {
      return value.toString();
    }
    return value.toString(); // nested structures: their JSON text
  }

  /** Style {@code simple} (path and header): {@code a,b} or {@code k,v} / {@code k=v}. */
  static String simple(JsonNode value, boolean explode) {
    if (value.isArray()) {
      List<String> parts = new ArrayList<>();
      value.forEach(item -> parts.add(text(item)));
      return String.join(",", parts);
    }
    if (value.isObject()) {
      List<String> parts = new ArrayList<>();
      for (Map.Entry<String, JsonNode> field : value.properties()) {
        if (explode) {
          parts.add(field.getKey() + "=" + text(field.getValue()));
        } else {
          parts.add(field.getKey());
          parts.add(text(field.getValue()));
        }
      }
      return String.join(",", parts);
    }
    return text(value);
  }

  /** Appends one query parameter in its style; names and values are percent-encoded. */
  static void query(HttpOperation.Param param, JsonNode value, StringBuilder query) {
    String name = UriEncoding.component(param.name());
    String style = param.style();
    if (value.isArray()) {
      List<String> items = new ArrayList<>();
      value.forEach(item -> items.add(UriEncoding.component(text(item))));
      if (param.explode()) {
        items.forEach(item -> append(query, name, item));
      } else {
        String separator =
            switch (style) {
              case "spaceDelimited" -> "%20";
              case "pipeDelimited" -> "%7C";
              case "tabDelimited" -> "%09"; // Swagger 2.0's collectionFormat tsv (D50)
              default -> ",";
            };
        append(query, name, String.join(separator, items));
      }
      return;
    }
    if (value.isObject()) {
      if (style.equals("deepObject")) {
        for (Map.Entry<String, JsonNode> field : value.properties()) {
          append(
              query,
              name + "%5B" + UriEncoding.component(field.getKey()) + "%5D",
              UriEncoding.component(text(field.getValue())));
        }
      } else if (param.explode()) {
        for (Map.Entry<String, JsonNode> field : value.properties()) {
          append(
              query,
              UriEncoding.component(field.getKey()),
              UriEncoding.component(text(field.getValue())));
        }
      } else {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, JsonNode> field : value.properties()) {
          parts.add(UriEncoding.component(field.getKey()));
          parts.add(UriEncoding.component(text(field.getValue())));
        }
        append(query, name, String.join(",", parts));
      }
      return;
    }
    append(query, name, UriEncoding.component(text(value)));
  }

  static void append(StringBuilder query, String encodedName, String encodedValue) {
    if (query.length() > 0) {
      query.append('&');
    }
    query.append(encodedName).append('=').append(encodedValue);
  }
}
