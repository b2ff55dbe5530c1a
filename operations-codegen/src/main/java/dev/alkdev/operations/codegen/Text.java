package dev.alkdev.operations.codegen;

import java.util.Locale;

/**
 * Text from schemas and specs, made safe to put into Java source. The output is ASCII: a file reads
 * the same whatever encoding its compiler assumes.
 */
final class Text {
  /**
   * An annotation value is a class-file constant, at most 65535 bytes of modified UTF-8; every char
   * takes at most 3 of them, so this many chars always fit.
   */
  static final int MAX_CONSTANT_CHARS = 20_000;

  private Text() {}

  /**
   * {@code raw} as Javadoc text that shows exactly {@code raw}: HTML's special characters,
   * {@code @} (inline tags), {@code \} (a {@code \}{@code u} would be read as a Unicode escape
   * before the comment is) and the end of the comment are written as character references,
   * non-ASCII characters too; control characters become spaces.
   */
  static String doc(String raw) {
    StringBuilder out = new StringBuilder(raw.length());
    String s = raw.replace("\r\n", "\n").replace('\r', '\n');
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      switch (cp) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '@' -> out.append("&#64;");
        case '\\' -> out.append("&#92;");
        case '/' ->
            out.append(out.length() > 0 && out.charAt(out.length() - 1) == '*' ? "&#47;" : "/");
        case '\n' -> out.append('\n');
        default -> {
          if (cp < 0x20 || cp == 0x7f) {
            out.append(' ');
          } else if (cp > 0x7e) {
            out.append("&#x").append(Integer.toHexString(cp).toUpperCase(Locale.ROOT)).append(';');
          } else {
            out.append((char) cp);
          }
        }
      }
    }
    // Trailing blanks on a line would be stripped by any formatter; strip them here already.
    return out.toString().replaceAll("[ \t]+\n", "\n").strip();
  }

  /** {@code raw} in {@code <code>} for Javadoc, cut after 200 characters. */
  static String code(String raw) {
    String shown = raw.length() > 200 ? raw.substring(0, 200) + "..." : raw;
    return "<code>" + doc(shown).replace("\n", " ") + "</code>";
  }

  /**
   * {@code raw} as a Java string literal, quotes included, in ASCII: non-ASCII characters as
   * Unicode escapes, control characters as escape sequences (a line break must never be a Unicode
   * escape, which the compiler would turn into a real line break inside the literal).
   */
  static String literal(String raw) {
    StringBuilder out = new StringBuilder(raw.length() + 2).append('"');
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
