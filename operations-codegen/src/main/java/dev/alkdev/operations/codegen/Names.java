package dev.alkdev.operations.codegen;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * How names from schemas and specs become Java identifiers. Only ASCII letters and digits survive
 * (accents are stripped first): a generated file then reads the same whatever encoding its compiler
 * assumes, and the original spelling is kept where it matters, in {@code @JsonProperty}.
 */
final class Names {
  /** Longer identifiers are cut: a type name is a file name, and file systems stop at 255 bytes. */
  static final int MAX_IDENTIFIER = 100;

  /** Keywords, literals, and the restricted identifiers that cannot name a type or be called. */
  private static final Set<String> KEYWORDS =
      Set.of(
          "abstract",
          "assert",
          "boolean",
          "break",
          "byte",
          "case",
          "catch",
          "char",
          "class",
          "const",
          "continue",
          "default",
          "do",
          "double",
          "else",
          "enum",
          "extends",
          "final",
          "finally",
          "float",
          "for",
          "goto",
          "if",
          "implements",
          "import",
          "instanceof",
          "int",
          "interface",
          "long",
          "native",
          "new",
          "package",
          "private",
          "protected",
          "public",
          "return",
          "short",
          "static",
          "strictfp",
          "super",
          "switch",
          "synchronized",
          "this",
          "throw",
          "throws",
          "transient",
          "try",
          "void",
          "volatile",
          "while",
          "true",
          "false",
          "null",
          "_",
          "var",
          "yield",
          "record",
          "sealed",
          "permits",
          "non-sealed");

  private static final Set<String> RESTRICTED =
      Set.of("var", "yield", "record", "sealed", "permits", "non-sealed");

  /**
   * Methods every record and interface has from {@link Object}: a component or an operation with
   * one of these names would clash with them, with another return type or a final method.
   */
  private static final Set<String> OBJECT_METHODS =
      Set.of(
          "hashCode",
          "toString",
          "equals",
          "getClass",
          "clone",
          "finalize",
          "notify",
          "notifyAll",
          "wait");

  private Names() {}

  /**
   * Whether {@code s} is a keyword or literal that no identifier may be, unlike the restricted
   * identifiers ({@code var}, {@code record}, ...), which may name a package.
   */
  static boolean isReservedKeyword(String s) {
    return KEYWORDS.contains(s) && !RESTRICTED.contains(s);
  }

  /**
   * The words of a name: runs of ASCII letters and digits, split again where camel case starts a
   * new word ({@code petId} is pet, Id; {@code HTTPServer} is HTTP, Server).
   */
  static List<String> words(String raw) {
    String s = Normalizer.normalize(raw, Normalizer.Form.NFD);
    List<String> out = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.getType(c) == Character.NON_SPACING_MARK) {
        continue; // the accent of a decomposed letter: é is e
      }
      if (!isAsciiLetterOrDigit(c)) {
        flush(word, out);
        continue;
      }
      if (word.length() > 0 && isUpper(c)) {
        char prev = word.charAt(word.length() - 1);
        boolean nextLower = i + 1 < s.length() && isLower(s.charAt(i + 1));
        if (isLower(prev) || isDigit(prev) || (isUpper(prev) && nextLower)) {
          flush(word, out);
        }
      }
      word.append(c);
    }
    flush(word, out);
    return out;
  }

  /** PascalCase: {@code list_pets} is ListPets, {@code PET_STORE} is PetStore. */
  static String pascal(String raw) {
    StringBuilder out = new StringBuilder();
    for (String word : words(raw)) {
      out.append(capitalized(word));
    }
    return out.toString();
  }

  /** camelCase: {@code get_pets_by_petId} is getPetsByPetId, {@code URL} is url. */
  static String camel(String raw) {
    List<String> words = words(raw);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < words.size(); i++) {
      out.append(i == 0 ? words.get(i).toLowerCase(Locale.ROOT) : capitalized(words.get(i)));
    }
    return out.toString();
  }

  /**
   * A method or record component name for {@code raw}: camelCase; a leading {@code _} before a
   * digit, a trailing {@code _} after a keyword or a method of Object; {@code fallback} when
   * nothing usable is left.
   */
  static String member(String raw, String fallback) {
    String name = cut(camel(raw));
    if (name.isEmpty()) {
      return fallback;
    }
    if (isDigit(name.charAt(0))) {
      name = "_" + name;
    }
    if (KEYWORDS.contains(name) || OBJECT_METHODS.contains(name)) {
      name = name + "_";
    }
    return name;
  }

  /** A type name for {@code raw}: PascalCase, {@code _} before a leading digit, "Type" if empty. */
  static String type(String raw) {
    String name = cut(pascal(raw));
    if (name.isEmpty()) {
      return "Type";
    }
    return isDigit(name.charAt(0)) ? "_" + name : name;
  }

  /**
   * An enum constant for a string value: UPPER_SNAKE of its words; {@code _} before a leading
   * digit; EMPTY for the empty string; for a value with no letter or digit, {@code _} and the
   * hexadecimal code of each character ({@code "+"} is {@code _2B}), so that such values keep
   * distinct names.
   */
  static String enumConstant(String value) {
    if (value.isEmpty()) {
      return "EMPTY";
    }
    List<String> words = words(value);
    String name;
    if (words.isEmpty()) {
      StringBuilder hex = new StringBuilder();
      value
          .codePoints()
          .limit(16)
          .forEach(cp -> hex.append('_').append(Integer.toHexString(cp).toUpperCase(Locale.ROOT)));
      name = hex.toString();
    } else {
      name = String.join("_", words).toUpperCase(Locale.ROOT);
    }
    name = cut(name);
    return isDigit(name.charAt(0)) ? "_" + name : name;
  }

  /** Makes {@code name} unique in {@code taken} with {@code sep + 2}, {@code sep + 3}, ... */
  static String unique(String name, Set<String> taken, String sep) {
    String candidate = name;
    for (int n = 2; !taken.add(candidate); n++) {
      candidate = name + sep + n;
    }
    return candidate;
  }

  /** A fresh set for {@link #unique}. */
  static Set<String> taken() {
    return new HashSet<>();
  }

  private static String capitalized(String word) {
    boolean allUpper = word.chars().noneMatch(c -> isLower((char) c));
    if (allUpper && word.length() > 1) {
      return word.charAt(0) + word.substring(1).toLowerCase(Locale.ROOT);
    }
    return Character.toUpperCase(word.charAt(0)) + word.substring(1);
  }

  private static String cut(String name) {
    return name.length() > MAX_IDENTIFIER ? name.substring(0, MAX_IDENTIFIER) : name;
  }

  private static void flush(StringBuilder word, List<String> out) {
    if (word.length() > 0) {
      out.add(word.toString());
      word.setLength(0);
    }
  }

  private static boolean isAsciiLetterOrDigit(char c) {
    return isUpper(c) || isLower(c) || isDigit(c);
  }

  private static boolean isUpper(char c) {
    return c >= 'A' && c <= 'Z';
  }

  private static boolean isLower(char c) {
    return c >= 'a' && c <= 'z';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
