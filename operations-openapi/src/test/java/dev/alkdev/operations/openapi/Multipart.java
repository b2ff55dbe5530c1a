package dev.alkdev.operations.openapi;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A strict multipart/form-data reader for tests: what a server would see. */
final class Multipart {
  record Part(Map<String, String> headers, byte[] body) {
    String name() {
      return param("name");
    }

    String filename() {
      return param("filename");
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    String param(String key) {
      String disposition = headers.getOrDefault("content-disposition", "");
      for (String piece : disposition.split(";")) {
        String p = piece.trim();
        if (p.startsWith(key + "=\"") && p.endsWith("\"")) {
          return p.substring(key.length() + 2, p.length() - 1);
        }
      }
      return null;
    }
  }

  private Multipart() {}

  static List<Part> parse(String contentType, byte[] body) {
    String marker = "boundary=";
    int at = contentType.indexOf(marker);
    if (!contentType.startsWith("multipart/form-data") || at < 0) {
      throw new AssertionError("not multipart/form-data with a boundary: " + contentType);
    }
    String boundary = contentType.substring(at + marker.length()).trim();
    // ISO-8859-1 maps each byte to one char, so offsets are byte offsets.
    String all = new String(body, StandardCharsets.ISO_8859_1);
    String delimiter = "--" + boundary;
    if (!all.startsWith(delimiter + "\r\n") || !all.endsWith(delimiter + "--\r\n")) {
      throw new AssertionError("bad multipart framing: " + all);
    }
    List<Part> parts = new ArrayList<>();
    int pos = delimiter.length() + 2;
    while (true) {
      int headerEnd = all.indexOf("\r\n\r\n", pos);
      Map<String, String> headers = new LinkedHashMap<>();
      for (String line : all.substring(pos, headerEnd).split("\r\n")) {
        int colon = line.indexOf(':');
        headers.put(
            line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).trim());
      }
      int next = all.indexOf("\r\n" + delimiter, headerEnd + 4);
      byte[] content = all.substring(headerEnd + 4, next).getBytes(StandardCharsets.ISO_8859_1);
      parts.add(new Part(headers, content));
      pos = next + 2 + delimiter.length();
      if (all.startsWith("--", pos)) {
        return parts;
      }
      pos += 2;
    }
  }

  /** application/x-www-form-urlencoded pairs, decoded, in order. */
  static List<String[]> form(String body) {
    List<String[]> pairs = new ArrayList<>();
    if (body.isEmpty()) {
      return pairs;
    }
    for (String pair : body.split("&")) {
      String[] kv = pair.split("=", 2);
      pairs.add(
          new String[] {
            java.net.URLDecoder.decode(kv[0], StandardCharsets.UTF_8),
            java.net.URLDecoder.decode(kv.length > 1 ? kv[1] : "", StandardCharsets.UTF_8)
          });
    }
    return pairs;
  }
}
