package dev.alkdev.operations.mcp.internal;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The parameters of the {@code Bearer} challenge in a {@code WWW-Authenticate} header (RFC 9110,
 * section 11.6.1; RFC 6750, section 3; RFC 9728, section 5.1): {@code error}, {@code scope}, {@code
 * resource_metadata}. Other schemes in the same header are skipped; a header that does not parse
 * gives what was read before the fault.
 */
record BearerChallenge(Map<String, String> params) {

  static final BearerChallenge NONE = new BearerChallenge(Map.of());

  Optional<String> get(String name) {
    return Optional.ofNullable(params.get(name)).filter(v -> !v.isBlank());
  }

  static BearerChallenge parse(String header) {
    if (header == null) {
      return NONE;
    }
    Map<String, String> params = new LinkedHashMap<>();
    Parser p = new Parser(header);
    boolean inBearer = false;
    while (p.more()) {
      p.skip(", \t");
      int start = p.at;
      String token = p.token();
      if (token.isEmpty()) {
        break; // not a header we can read further
      }
      p.skip(" \t");
      if (p.peek() == '=' && !p.peekAt(1, '=')) {
        p.at++;
        p.skip(" \t");
        String value = p.peek() == '"' ? p.quoted() : p.token();
        if (inBearer) {
          params.putIfAbsent(token.toLowerCase(Locale.ROOT), value);
        }
      } else {
        // A scheme name begins a challenge (token68 credentials are not expected here).
        p.at = start + token.length();
        inBearer = token.equalsIgnoreCase("Bearer");
        if (!inBearer && !params.isEmpty()) {
          break; // the Bearer challenge ended
        }
      }
    }
    return new BearerChallenge(Map.copyOf(params));
  }

  private static final class Parser {
    private final String text;
    private int at;

    Parser(String text) {
      this.text = text;
    }

    boolean more() {
      return at < text.length();
    }

    char peek() {
      return at < text.length() ? text.charAt(at) : 0;
    }

    boolean peekAt(int offset, char c) {
      return at + offset < text.length() && text.charAt(at + offset) == c;
    }

    void skip(String chars) {
      while (at < text.length() && chars.indexOf(text.charAt(at)) >= 0) {
        at++;
      }
    }

    String token() {
      int start = at;
      while (at < text.length() && " \t,=\"".indexOf(text.charAt(at)) < 0) {
        at++;
      }
      return text.substring(start, at);
    }

    String quoted() {
      StringBuilder value = new StringBuilder();
      at++; // the opening quote
      while (at < text.length() && text.charAt(at) != '"') {
        char c = text.charAt(at++);
        if (c == '\\' && at < text.length()) {
          c = text.charAt(at++);
        }
        value.append(c);
      }
      at++; // the closing quote
      return value.toString();
    }
  }
}
