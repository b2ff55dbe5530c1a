package dev.alkdev.operations.schema.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * Rewrites an ECMA-262 regular expression, the dialect of JSON Schema's {@code pattern}, {@code
 * patternProperties} and {@code format: "regex"}, as a {@link java.util.regex.Pattern} with the
 * same meaning.
 *
 * <p>The two dialects look alike but differ where it matters: ECMA's {@code $} is the end of the
 * input (Java's also matches before a final line break), {@code \s} and {@code .} use other
 * character sets, {@code \b} is ASCII in ECMA, {@code \cc}, {@code \v}, {@code \0} and <code>
 * &#92;u{...}</code> mean other things or nothing in Java, {@code [} and {@code &&} are literal
 * inside an ECMA class, and ECMA spells Unicode properties {@code \p{Letter}} or {@code
 * \p{Script=Greek}}. Java-only syntax ({@code (?i)}, {@code (?>...)}, possessive quantifiers,
 * {@code \A}, {@code \Q}) is refused, so a pattern means the same to every JSON Schema
 * implementation.
 *
 * <p>The reading follows ECMA's unicode mode (the {@code u} flag, which the JSON Schema test suite
 * requires for {@code \p{...}}), with two leniencies from ECMA's web-compatibility grammar (Annex
 * B) because hand-written schemas rely on them: a backslash before any punctuation is that
 * character ({@code \-}, {@code \_}), and a brace that starts no quantifier is literal.
 *
 * <p>Known difference kept: a back-reference to a group that did not take part in the match matches
 * the empty string in ECMA but fails in Java.
 */
public final class EcmaRegexTranslator {
  /** Deepest group nesting accepted; Java's own parser recurses per level. */
  private static final int MAX_GROUP_DEPTH = 200;

  /** ECMA {@code \s}: WhiteSpace and LineTerminator, as ranges for a Java class. */
  private static final String WHITE_SPACE =
      "\\x{9}-\\x{D}\\x{20}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
          + "\\x{205F}\\x{3000}\\x{FEFF}";

  /** The complement of {@link #WHITE_SPACE}, so {@code \S} needs no nested class. */
  private static final String NOT_WHITE_SPACE =
      "\\x{0}-\\x{8}\\x{E}-\\x{1F}\\x{21}-\\x{9F}\\x{A1}-\\x{167F}\\x{1681}-\\x{1FFF}"
          + "\\x{200B}-\\x{2027}\\x{202A}-\\x{202E}\\x{2030}-\\x{205E}\\x{2060}-\\x{2FFF}"
          + "\\x{3001}-\\x{FEFE}\\x{FF00}-\\x{10FFFF}";

  /** ECMA {@code .}: anything but a LineTerminator (Java's {@code .} also stops at U+0085). */
  private static final String DOT = "[^\\x{A}\\x{D}\\x{2028}\\x{2029}]";

  /** ECMA {@code \b} and {@code \B} use the ASCII word characters (Java 17's use Unicode). */
  private static final String WORD_BOUNDARY = "(?:(?<=\\w)(?!\\w)|(?<!\\w)(?=\\w))";

  private static final String NOT_WORD_BOUNDARY = "(?:(?<=\\w)(?=\\w)|(?<!\\w)(?!\\w))";

  private static final String ANY = "\\x{0}-\\x{10FFFF}";

  /** General_Category values and aliases ECMA accepts, to the short names Java knows. */
  private static final Map<String, String> GENERAL_CATEGORIES = generalCategories();

  /** ECMA binary properties Java 17 can express, as the inside of a Java character class. */
  private static final Map<String, String> BINARY_PROPERTIES = binaryProperties();

  private final String source;
  private final int[] codePoints;

  /**
   * Starts every translation. When a Java pattern begins with a literal, Pattern.compile builds a
   * Boyer-Moore table in time quadratic in the literal's length (100,000 letters take seconds,
   * longer ones minutes, and {@code format: "regex"} compiles values the caller sends); an empty
   * group in front stops that optimisation and costs nothing when matching.
   */
  private static final String NO_BOYER_MOORE = "(?:)";

  private final StringBuilder out = new StringBuilder(NO_BOYER_MOORE);
  private final Map<String, Integer> groupNames;
  private final int groupCount;
  private int pos;
  private int groupsOpened;
  private int depth;

  /** closed[n]: group n has been closed at the current point of the pattern. */
  private final boolean[] closed;

  private EcmaRegexTranslator(String source) {
    this.source = source;
    this.codePoints = source.codePoints().toArray();
    this.groupNames = new HashMap<>();
    this.groupCount = countGroups();
    this.closed = new boolean[groupCount + 1];
  }

  /**
   * The Java form of an ECMA-262 pattern.
   *
   * @throws IllegalArgumentException if {@code ecma} is not a valid ECMA-262 pattern, or uses a
   *     construct Java cannot express; the message says what and where
   */
  public static String toJava(String ecma) {
    EcmaRegexTranslator translator = new EcmaRegexTranslator(ecma);
    translator.disjunction();
    if (!translator.atEnd()) {
      throw translator.error("unmatched ')'");
    }
    return translator.out.toString();
  }

  // --- grammar ---------------------------------------------------------------------------------

  private void disjunction() {
    alternative();
    while (!atEnd() && peek() == '|') {
      pos++;
      out.append('|');
      alternative();
    }
  }

  private void alternative() {
    while (!atEnd() && peek() != '|' && peek() != ')') {
      term();
    }
  }

  private void term() {
    int c = peek();
    switch (c) {
      case '^':
        pos++;
        out.append('^');
        noQuantifier("^");
        return;
      case '$':
        pos++;
        // ECMA's $ (without the m flag) is the end of the input; Java's $ also matches before a
        // final line break.
        out.append("\\z");
        noQuantifier("$");
        return;
      case '\\':
        if (peek(1) == 'b' || peek(1) == 'B') {
          boolean boundary = peek(1) == 'b';
          pos += 2;
          out.append(boundary ? WORD_BOUNDARY : NOT_WORD_BOUNDARY);
          noQuantifier(boundary ? "\\b" : "\\B");
          return;
        }
        pos++;
        atomEscape();
        break;
      case '(':
        if (group()) {
          return; // a lookaround: an assertion, not quantifiable in unicode mode
        }
        break;
      case '.':
        pos++;
        out.append(DOT);
        break;
      case '[':
        characterClass();
        break;
      case '*':
      case '+':
      case '?':
        throw error("nothing to repeat before '" + (char) c + "'");
      case '{':
        if (quantifierBraceLength() > 0) {
          throw error("nothing to repeat before '{'");
        }
        pos++;
        literal(c); // Annex B: a brace that starts no quantifier is itself
        break;
      default:
        pos++;
        literal(c);
        break;
    }
    quantifier();
  }

  private void noQuantifier(String assertion) {
    if (!atEnd()
        && (peek() == '*' || peek() == '+' || peek() == '?' || quantifierBraceLength() > 0)) {
      throw error("the assertion " + assertion + " cannot be repeated");
    }
  }

  private void quantifier() {
    if (atEnd()) {
      return;
    }
    int c = peek();
    if (c == '*' || c == '+' || c == '?') {
      pos++;
      out.append((char) c);
    } else if (c == '{') {
      int length = quantifierBraceLength();
      if (length == 0) {
        return;
      }
      String body = source.substring(offset(pos + 1), offset(pos + length - 1));
      pos += length;
      int comma = body.indexOf(',');
      long min = count(comma < 0 ? body : body.substring(0, comma));
      long max =
          comma < 0 ? min : comma == body.length() - 1 ? -1 : count(body.substring(comma + 1));
      if (max >= 0 && max < min) {
        throw error("numbers out of order in {" + body + "} quantifier");
      }
      // A string never holds more than Integer.MAX_VALUE characters, so clamping keeps meaning.
      out.append('{').append(Math.min(min, Integer.MAX_VALUE));
      if (comma >= 0) {
        out.append(',');
        if (max >= 0) {
          out.append(Math.min(max, Integer.MAX_VALUE));
        }
      }
      out.append('}');
    } else {
      return;
    }
    if (!atEnd() && peek() == '?') {
      pos++;
      out.append('?');
    }
    if (!atEnd()
        && (peek() == '*' || peek() == '+' || peek() == '?' || quantifierBraceLength() > 0)) {
      // Java would read a following + as possessive; ECMA has no such thing.
      throw error("nothing to repeat before '" + (char) peek() + "'");
    }
  }

  /** The length of a well-formed {n}, {n,} or {n,m} at pos, or 0. */
  private int quantifierBraceLength() {
    if (atEnd() || peek() != '{') {
      return 0;
    }
    int i = pos + 1;
    int digits = 0;
    while (i < codePoints.length && isDigit(codePoints[i])) {
      i++;
      digits++;
    }
    if (digits == 0) {
      return 0;
    }
    if (i < codePoints.length && codePoints[i] == ',') {
      i++;
      while (i < codePoints.length && isDigit(codePoints[i])) {
        i++;
      }
    }
    return i < codePoints.length && codePoints[i] == '}' ? i + 1 - pos : 0;
  }

  private long count(String digits) {
    // ECMA allows any size; anything past a long's range is as good as infinite here.
    return digits.length() > 18 ? Long.MAX_VALUE : Long.parseLong(digits);
  }

  /** Reads a group; returns true if it was a lookaround assertion. */
  private boolean group() {
    pos++; // (
    if (++depth > MAX_GROUP_DEPTH) {
      throw error("groups nested deeper than " + MAX_GROUP_DEPTH);
    }
    boolean assertion = false;
    int capture = 0;
    if (!atEnd() && peek() == '?') {
      int next = peek(1);
      if (next == ':') {
        pos += 2;
        out.append("(?:");
      } else if (next == '=' || next == '!') {
        pos += 2;
        out.append("(?").append((char) next);
        assertion = true;
      } else if (next == '<' && (peek(2) == '=' || peek(2) == '!')) {
        out.append("(?<").append((char) peek(2));
        pos += 3;
        assertion = true;
      } else if (next == '<') {
        pos += 2;
        String name = groupName();
        capture = ++groupsOpened;
        out.append("(?<g").append(capture).append('>');
      } else {
        throw error(
            "'(?"
                + (next < 0 ? "" : new String(Character.toChars(next)))
                + "' is not ECMA-262 group syntax (only (?:, (?=, (?!, (?<=, (?<! and (?<name>"
                + " are)");
      }
    } else {
      capture = ++groupsOpened;
      out.append('(');
    }
    disjunction();
    if (atEnd()) {
      throw error("missing ')'");
    }
    pos++;
    out.append(')');
    depth--;
    if (capture > 0) {
      closed[capture] = true;
    }
    if (assertion) {
      noQuantifier("lookaround");
    }
    return assertion;
  }

  /** Reads {@code name>} after {@code (?<} or {@code \k<}. */
  private String groupName() {
    int start = pos;
    while (!atEnd() && peek() != '>') {
      int c = peek();
      boolean ok =
          Character.isLetter(c) || c == '$' || c == '_' || (pos > start && Character.isDigit(c));
      if (!ok) {
        throw error("invalid character in group name");
      }
      pos++;
    }
    if (atEnd() || pos == start) {
      throw error("invalid group name");
    }
    String name = new String(codePoints, start, pos - start);
    pos++; // >
    return name;
  }

  private void atomEscape() {
    if (atEnd()) {
      throw error("'\\' at the end of the pattern");
    }
    int c = peek();
    if (c >= '1' && c <= '9') {
      int start = pos;
      while (!atEnd() && isDigit(peek())) {
        pos++;
      }
      long n = count(new String(codePoints, start, pos - start));
      if (n > groupCount) {
        throw error("back-reference \\" + n + " to a group that does not exist");
      }
      backReference((int) n);
      return;
    }
    if (c == 'k') {
      pos++;
      if (atEnd() || peek() != '<') {
        throw error("'\\k' must be followed by <name>");
      }
      pos++;
      String name = groupName();
      Integer n = groupNames.get(name);
      if (n == null) {
        throw error("back-reference to an unknown group name <" + name + ">");
      }
      backReference(n);
      return;
    }
    ClassEscape escape = classEscape(c);
    if (escape != null) {
      pos++;
      out.append('[').append(escape.negated ? "^" : "").append(escape.javaClassBody).append(']');
      return;
    }
    literal(characterEscape(false));
  }

  private void backReference(int group) {
    // In ECMA a reference to a group not yet closed at this point (a forward reference, or one
    // inside the group itself) always sees an empty capture; Java would fail to match instead.
    out.append(closed[group] ? "(?:\\" + group + ")" : "(?:)");
  }

  /** {@code \d \D \w \W \s \S \p{..} \P{..}} at pos (pos on the letter), or null. */
  private ClassEscape classEscape(int c) {
    switch (c) {
      case 'd':
        return new ClassEscape("0-9", false);
      case 'D':
        return new ClassEscape("0-9", true);
      case 'w':
        return new ClassEscape("a-zA-Z0-9_", false);
      case 'W':
        return new ClassEscape("a-zA-Z0-9_", true);
      case 's':
        return new ClassEscape(WHITE_SPACE, false);
      case 'S':
        return new ClassEscape(NOT_WHITE_SPACE, false);
      case 'p':
      case 'P':
        return property(c == 'P');
      default:
        return null;
    }
  }

  /** Reads {@code {...}} after \p or \P; leaves pos on the closing brace. */
  private ClassEscape property(boolean negated) {
    int brace = pos + 1;
    if (brace >= codePoints.length || codePoints[brace] != '{') {
      throw error("'\\" + (negated ? 'P' : 'p') + "' must be followed by {property}");
    }
    int end = brace + 1;
    while (end < codePoints.length && codePoints[end] != '}') {
      end++;
    }
    if (end >= codePoints.length) {
      throw error("unterminated Unicode property escape");
    }
    String spec = new String(codePoints, brace + 1, end - brace - 1);
    pos = end; // the caller steps over the closing brace
    return new ClassEscape(propertyClassBody(spec), negated);
  }

  private String propertyClassBody(String spec) {
    int eq = spec.indexOf('=');
    if (eq >= 0) {
      String name = spec.substring(0, eq);
      String value = spec.substring(eq + 1);
      switch (name) {
        case "General_Category":
        case "gc":
          return generalCategory(value, spec);
        case "Script":
        case "sc":
          try {
            Character.UnicodeScript.forName(value);
          } catch (IllegalArgumentException e) {
            throw error("unknown Unicode script in \\p{" + spec + "}");
          }
          return "\\p{sc=" + value + "}";
        case "Script_Extensions":
        case "scx":
          throw error("\\p{" + spec + "}: Script_Extensions is not supported by the Java engine");
        default:
          throw error("unknown Unicode property \\p{" + spec + "}");
      }
    }
    String category = GENERAL_CATEGORIES.get(spec);
    if (category != null) {
      return "\\p{" + category + "}";
    }
    String binary = BINARY_PROPERTIES.get(spec);
    if (binary != null) {
      return binary;
    }
    throw error("unknown or unsupported Unicode property \\p{" + spec + "}");
  }

  private String generalCategory(String value, String spec) {
    String category = GENERAL_CATEGORIES.get(value);
    if (category == null) {
      throw error("unknown General_Category value in \\p{" + spec + "}");
    }
    return "\\p{" + category + "}";
  }

  /** A CharacterEscape at pos (after the backslash), as a code point. */
  private int characterEscape(boolean inClass) {
    int c = peek();
    pos++;
    switch (c) {
      case 'f':
        return 0x0C;
      case 'n':
        return 0x0A;
      case 'r':
        return 0x0D;
      case 't':
        return 0x09;
      case 'v':
        return 0x0B; // Java's \v is a class of vertical whitespace
      case 'c':
        if (!atEnd() && isAsciiLetter(peek())) {
          return codePoints[pos++] % 32;
        }
        throw error("'\\c' must be followed by a letter A-Z or a-z");
      case '0':
        if (!atEnd() && isDigit(peek())) {
          throw error("octal escapes are not allowed");
        }
        return 0;
      case 'x':
        return hex(2, "'\\x' must be followed by two hexadecimal digits");
      case 'u':
        return unicodeEscape();
      default:
        if (c == '-' || (c < 128 && !isAsciiLetterOrDigit(c)) || (c >= 128 && !isIdPart(c))) {
          return c; // \. \/ \- \_ and the like: the character itself
        }
        pos--;
        throw error(
            "'\\"
                + new String(Character.toChars(c))
                + "' is not an ECMA-262 escape"
                + (inClass ? " inside a character class" : ""));
    }
  }

  private int unicodeEscape() {
    if (!atEnd() && peek() == '{') {
      pos++;
      int start = pos;
      while (!atEnd() && isHex(peek())) {
        pos++;
      }
      if (pos == start || atEnd() || peek() != '}') {
        throw error("'\\u{' must hold hexadecimal digits and end with '}'");
      }
      String digits = new String(codePoints, start, pos - start);
      pos++;
      long value = digits.length() > 8 ? Long.MAX_VALUE : Long.parseLong(digits, 16);
      if (value > Character.MAX_CODE_POINT) {
        throw error("'\\u{" + digits + "}' is beyond U+10FFFF");
      }
      return (int) value;
    }
    int unit = hex(4, "'\\u' must be followed by four hexadecimal digits or {digits}");
    // In unicode mode an escaped surrogate pair is one code point.
    if (Character.isHighSurrogate((char) unit) && peek() == '\\' && peek(1) == 'u') {
      int save = pos;
      pos += 2;
      boolean allHex = true;
      for (int i = 0; i < 4; i++) {
        allHex &= pos + i < codePoints.length && isHex(codePoints[pos + i]);
      }
      if (allHex) {
        int low = Integer.parseInt(new String(codePoints, pos, 4), 16);
        if (Character.isLowSurrogate((char) low)) {
          pos += 4;
          return Character.toCodePoint((char) unit, (char) low);
        }
      }
      pos = save;
    }
    return unit;
  }

  private int hex(int digits, String message) {
    if (pos + digits > codePoints.length) {
      throw error(message);
    }
    int value = 0;
    for (int i = 0; i < digits; i++) {
      int c = codePoints[pos + i];
      if (!isHex(c)) {
        throw error(message);
      }
      value = value * 16 + Character.digit(c, 16);
    }
    pos += digits;
    return value;
  }

  private void characterClass() {
    pos++; // [
    boolean negated = !atEnd() && peek() == '^';
    if (negated) {
      pos++;
    }
    StringBuilder body = new StringBuilder();
    boolean empty = true;
    while (true) {
      if (atEnd()) {
        throw error("missing ']'");
      }
      if (peek() == ']') {
        pos++;
        break;
      }
      empty = false;
      ClassAtom first = classAtom();
      if (!atEnd() && peek() == '-' && peek(1) != ']' && peek(1) >= 0) {
        int dash = pos;
        pos++;
        ClassAtom last = classAtom();
        if (first.escape == null && last.escape == null) {
          if (last.codePoint < first.codePoint) {
            pos = dash;
            throw error("range out of order in character class");
          }
          body.append(hexLiteral(first.codePoint)).append('-').append(hexLiteral(last.codePoint));
          continue;
        }
        // Annex B: next to a class escape such as \d, a dash is literal.
        first.appendTo(body);
        body.append(hexLiteral('-'));
        last.appendTo(body);
        continue;
      }
      first.appendTo(body);
    }
    if (empty) {
      // ECMA's [] matches nothing and [^] anything; Java rejects both spellings.
      out.append(negated ? "[" + ANY + "]" : "[^" + ANY + "]");
      return;
    }
    out.append('[').append(negated ? "^" : "").append(body).append(']');
  }

  private ClassAtom classAtom() {
    int c = peek();
    if (c != '\\') {
      pos++;
      return new ClassAtom(c, null);
    }
    pos++;
    if (atEnd()) {
      throw error("'\\' at the end of the pattern");
    }
    int e = peek();
    if (e == 'b') {
      pos++;
      return new ClassAtom(0x08, null); // backspace inside a class
    }
    if (e == 'B' || e == 'k' || (e >= '1' && e <= '9')) {
      throw error("'\\" + (char) e + "' is not allowed inside a character class");
    }
    ClassEscape escape = classEscape(e);
    if (escape != null) {
      pos++;
      return new ClassAtom(-1, escape);
    }
    return new ClassAtom(characterEscape(true), null);
  }

  private void literal(int codePoint) {
    if (codePoint < 128 && isAsciiLetterOrDigit(codePoint)) {
      out.append((char) codePoint);
    } else {
      out.append(hexLiteral(codePoint));
    }
  }

  private static String hexLiteral(int codePoint) {
    return "\\x{" + Integer.toHexString(codePoint) + "}";
  }

  // --- pre-pass: capturing groups, so back-references can be checked --------------------------

  private int countGroups() {
    int count = 0;
    boolean inClass = false;
    for (int i = 0; i < codePoints.length; i++) {
      int c = codePoints[i];
      if (c == '\\') {
        i++;
      } else if (inClass) {
        inClass = c != ']';
      } else if (c == '[') {
        inClass = true;
      } else if (c == '(') {
        boolean question = i + 1 < codePoints.length && codePoints[i + 1] == '?';
        if (!question) {
          count++;
        } else if (i + 2 < codePoints.length
            && codePoints[i + 2] == '<'
            && i + 3 < codePoints.length
            && codePoints[i + 3] != '='
            && codePoints[i + 3] != '!') {
          count++;
          int end = i + 3;
          while (end < codePoints.length && codePoints[end] != '>') {
            end++;
          }
          String name = new String(codePoints, i + 3, Math.max(0, end - i - 3));
          if (groupNames.putIfAbsent(name, count) != null) {
            pos = i;
            throw error("duplicate group name <" + name + ">");
          }
        }
      }
    }
    return count;
  }

  // --- helpers ---------------------------------------------------------------------------------

  private boolean atEnd() {
    return pos >= codePoints.length;
  }

  /** The code point at pos, or -1 at the end. */
  private int peek() {
    return peek(0);
  }

  private int peek(int ahead) {
    int i = pos + ahead;
    return i < codePoints.length ? codePoints[i] : -1;
  }

  private int offset(int codePointIndex) {
    return source.offsetByCodePoints(0, codePointIndex);
  }

  private IllegalArgumentException error(String reason) {
    return new IllegalArgumentException(reason + " (at character " + pos + ")");
  }

  private static boolean isDigit(int c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isHex(int c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static boolean isAsciiLetter(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isAsciiLetterOrDigit(int c) {
    return isAsciiLetter(c) || isDigit(c);
  }

  private static boolean isIdPart(int c) {
    return Character.isUnicodeIdentifierPart(c) && !Character.isIdentifierIgnorable(c);
  }

  /** What {@code \d}, {@code \p{L}} and the like stand for, as the body of a Java class. */
  private record ClassEscape(String javaClassBody, boolean negated) {}

  /** One member of a character class: a code point, or a class escape. */
  private record ClassAtom(int codePoint, ClassEscape escape) {
    void appendTo(StringBuilder body) {
      if (escape == null) {
        body.append(hexLiteral(codePoint));
      } else if (escape.negated) {
        body.append("[^").append(escape.javaClassBody).append(']'); // Java: nested = union
      } else {
        body.append(escape.javaClassBody);
      }
    }
  }

  private static Map<String, String> generalCategories() {
    String[] table = {
      "Cased_Letter",
      "LC",
      "Close_Punctuation",
      "Pe",
      "Connector_Punctuation",
      "Pc",
      "Control",
      "Cc",
      "cntrl",
      "Cc",
      "Currency_Symbol",
      "Sc",
      "Dash_Punctuation",
      "Pd",
      "Decimal_Number",
      "Nd",
      "digit",
      "Nd",
      "Enclosing_Mark",
      "Me",
      "Final_Punctuation",
      "Pf",
      "Format",
      "Cf",
      "Initial_Punctuation",
      "Pi",
      "Letter",
      "L",
      "Letter_Number",
      "Nl",
      "Line_Separator",
      "Zl",
      "Lowercase_Letter",
      "Ll",
      "Mark",
      "M",
      "Combining_Mark",
      "M",
      "Math_Symbol",
      "Sm",
      "Modifier_Letter",
      "Lm",
      "Modifier_Symbol",
      "Sk",
      "Nonspacing_Mark",
      "Mn",
      "Number",
      "N",
      "Open_Punctuation",
      "Ps",
      "Other",
      "C",
      "Other_Letter",
      "Lo",
      "Other_Number",
      "No",
      "Other_Punctuation",
      "Po",
      "Other_Symbol",
      "So",
      "Paragraph_Separator",
      "Zp",
      "Private_Use",
      "Co",
      "Punctuation",
      "P",
      "punct",
      "P",
      "Separator",
      "Z",
      "Space_Separator",
      "Zs",
      "Spacing_Mark",
      "Mc",
      "Surrogate",
      "Cs",
      "Symbol",
      "S",
      "Titlecase_Letter",
      "Lt",
      "Unassigned",
      "Cn",
      "Uppercase_Letter",
      "Lu"
    };
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < table.length; i += 2) {
      map.put(table[i], table[i + 1]);
      map.put(table[i + 1], table[i + 1]);
    }
    return Map.copyOf(map);
  }

  private static Map<String, String> binaryProperties() {
    Map<String, String> map = new HashMap<>();
    map.put("ASCII", "\\x{0}-\\x{7F}");
    map.put("ASCII_Hex_Digit", "0-9A-Fa-f");
    map.put("AHex", "0-9A-Fa-f");
    map.put("Any", ANY);
    for (String[] names :
        new String[][] {
          {"Alphabetic", "Alpha"},
          {"Assigned", null},
          {"Hex_Digit", "Hex"},
          {"Ideographic", "Ideo"},
          {"Join_Control", "Join_C"},
          {"Lowercase", "Lower"},
          {"Uppercase", "Upper"},
          {"Noncharacter_Code_Point", "NChar"},
          {"White_Space", "space"}
        }) {
      String java = "\\p{Is" + names[0] + "}";
      map.put(names[0], java);
      if (names[1] != null) {
        map.put(names[1], java);
      }
    }
    return Map.copyOf(map);
  }
}
