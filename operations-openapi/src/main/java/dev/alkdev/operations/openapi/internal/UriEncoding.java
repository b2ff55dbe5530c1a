package dev.alkdev.operations.openapi.internal;

import java.nio.charset.StandardCharsets;

/** Percent-encoding for path segments and query components. */
public final class UriEncoding {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private UriEncoding() {}

  /**
   * {@code value} as exactly one path segment: everything but ASCII letters, digits, {@code -_~}
   * and non-leading-run dots is encoded, and a segment made only of dots ({@code .}, {@code ..})
   * has its dots encoded so it cannot walk up the path.
   */
  public static String segment(String value) {
    boolean allDots = !value.isEmpty() && value.chars().allMatch(c -> c == '.');
    StringBuilder out = new StringBuilder();
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (isUnreserved(c) && !(allDots && c == '.')) {
        out.append((char) c);
      } else {
        appendEscape(out, c);
      }
    }
    return out.toString();
  }

  /** {@code value} encoded for a query name or value: only unreserved characters stay. */
  public static String component(String value) {
    StringBuilder out = new StringBuilder();
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (isUnreserved(c)) {
        out.append((char) c);
      } else {
        appendEscape(out, c);
      }
    }
    return out.toString();
  }

  private static boolean isUnreserved(int c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_'
        || c == '.'
        || c == '~';
  }

  private static void appendEscape(StringBuilder out, int c) {
    out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
  }
}
