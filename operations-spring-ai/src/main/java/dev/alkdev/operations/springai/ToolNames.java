package dev.alkdev.operations.springai;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Operation ids as tool names that model APIs accept. OpenAI, Anthropic, Gemini and others take
 * function names matching {@code ^[a-zA-Z0-9_-]{1,64}$}; an id may hold dots and be up to 193
 * characters long.
 */
final class ToolNames {
  static final int MAX_LENGTH = 64;
  private static final int HASH_CHARS = 8;

  private ToolNames() {}

  /**
   * Every character outside {@code [a-zA-Z0-9_-]} becomes {@code _}; a name still longer than 64
   * characters keeps its first 55 and ends with {@code _} and 8 hex digits of the id's SHA-256, so
   * the same id always gets the same name and two long ids that share a prefix still differ.
   */
  static String of(String operationId) {
    StringBuilder name = safe(operationId);
    if (name.length() <= MAX_LENGTH) {
      return name.toString();
    }
    name.setLength(MAX_LENGTH - HASH_CHARS - 1);
    return name.append('_').append(hash(operationId)).toString();
  }

  /**
   * The name for an id whose {@link #of} name another id holds (after the characters were replaced,
   * {@code a.b_c} and {@code a_b.c} are one name): its safe head, cut so that {@code _} and 8 hex
   * digits of the id's SHA-256 fit.
   */
  static String distinct(String operationId) {
    StringBuilder name = safe(operationId);
    name.setLength(Math.min(name.length(), MAX_LENGTH - HASH_CHARS - 1));
    return name.append('_').append(hash(operationId)).toString();
  }

  private static StringBuilder safe(String operationId) {
    StringBuilder name = new StringBuilder(operationId.length());
    for (int i = 0; i < operationId.length(); i++) {
      char c = operationId.charAt(i);
      name.append(isToolNameChar(c) ? c : '_');
    }
    return name;
  }

  private static boolean isToolNameChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c == '-';
  }

  private static String hash(String operationId) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(operationId.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, HASH_CHARS / 2);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
