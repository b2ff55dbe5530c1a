package dev.alkdev.operations;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Operations as tool names: the one rule the MCP server and the Spring AI bridge both name tools
 * by, so an operation has the same name wherever a model meets it. A name is at most {@value
 * #MAX_LENGTH} characters (several MCP clients and the model APIs cap there); a longer one keeps
 * its head and ends with {@code _} and the CRC-32 of the whole as 8 hex digits. Where two
 * operations would have one name, the later id in id order is named {@link #distinct}; a caller
 * that finds that name taken too leaves the operation out rather than guess.
 */
public final class ToolNames {
  /** The longest tool name. */
  public static final int MAX_LENGTH = 64;

  private ToolNames() {}

  /**
   * {@code name} with every character outside {@code [A-Za-z0-9_-]} as {@code _}, as model APIs
   * require of function names: {@code github.repos.get} is {@code github_repos_get}.
   */
  public static String modelSafe(String name) {
    StringBuilder safe = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean allowed =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '-';
      safe.append(allowed ? c : '_');
    }
    return safe.toString();
  }

  /** {@code wanted} when it fits in {@value #MAX_LENGTH} characters, else its head and checksum. */
  public static String fit(String wanted) {
    return wanted.length() <= MAX_LENGTH ? wanted : shortened(wanted, wanted);
  }

  /**
   * The name of {@code operationId} when another operation holds {@link #fit}{@code (wanted)}: the
   * head of {@code wanted} and the checksum of {@code wanted} and the id together.
   */
  public static String distinct(String wanted, String operationId) {
    return shortened(wanted + "#" + operationId, wanted);
  }

  private static String shortened(String hashed, String wanted) {
    CRC32 crc = new CRC32();
    crc.update(hashed.getBytes(StandardCharsets.UTF_8));
    String suffix = String.format("_%08x", crc.getValue());
    return wanted.substring(0, Math.min(wanted.length(), MAX_LENGTH - suffix.length())) + suffix;
  }
}
