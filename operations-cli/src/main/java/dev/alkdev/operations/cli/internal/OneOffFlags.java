package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.source.SourceEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one-off flags ({@code --openapi NAME=LOCATION}, {@code --base-url NAME=URL}, {@code
 * --mcp-stdio NAME='COMMAND ARGS...'}, {@code --mcp-url NAME=URL}) as source entries, on top of the
 * configuration file's: a flag's entry replaces the file's entry of the same name, and {@code
 * --base-url} may also point a file's document somewhere else.
 */
public final class OneOffFlags {
  private OneOffFlags() {}

  public static OpsConfig apply(
      OpsConfig file,
      List<String> openApi,
      List<String> baseUrls,
      List<String> mcpStdio,
      List<String> mcpUrls) {
    Map<String, SourceEntry> entries = new LinkedHashMap<>();
    file.sources().forEach(entry -> entries.put(entry.name(), entry));
    for (String flag : openApi) {
      String[] pair = split("--openapi", flag, "NAME=LOCATION", "petstore=./petstore.yaml");
      ObjectNode settings = JsonInput.MAPPER.createObjectNode().put("location", pair[1]);
      replace(entries, SourceEntry.of("openapi", pair[0], settings));
    }
    for (String flag : mcpStdio) {
      String[] pair =
          split("--mcp-stdio", flag, "NAME='COMMAND ARGS...'", "files='npx -y server /tmp'");
      List<String> words = words(pair[1]);
      if (words.isEmpty()) {
        throw new ConfigException("--mcp-stdio " + flag + ": the command is empty");
      }
      ObjectNode settings = JsonInput.MAPPER.createObjectNode().put("command", words.get(0));
      ArrayNode args = settings.putArray("args");
      words.subList(1, words.size()).forEach(args::add);
      replace(entries, SourceEntry.of("mcp", pair[0], settings));
    }
    for (String flag : mcpUrls) {
      String[] pair = split("--mcp-url", flag, "NAME=URL", "remote=http://localhost:3000/mcp");
      ObjectNode settings = JsonInput.MAPPER.createObjectNode().put("url", pair[1]);
      replace(entries, SourceEntry.of("mcp", pair[0], ConfigParser.withDefaultOAuth(settings)));
    }
    for (String flag : baseUrls) {
      String[] pair = split("--base-url", flag, "NAME=URL", "petstore=http://localhost:8080");
      SourceEntry document = entries.get(pair[0]);
      if (document == null || !document.kind().equals("openapi")) {
        throw new ConfigException(
            "--base-url "
                + flag
                + ": there is no OpenAPI document named "
                + pair[0]
                + "; add --openapi "
                + pair[0]
                + "=LOCATION or an openapi entry in the configuration file");
      }
      ObjectNode settings = (ObjectNode) document.settings();
      settings.put("baseUrl", pair[1]);
      entries.put(pair[0], document.withSettings(settings));
    }
    return new OpsConfig(new ArrayList<>(entries.values()));
  }

  /** A flag's entry replaces the file's of the same name, whatever its kind, in its place. */
  private static void replace(Map<String, SourceEntry> entries, SourceEntry entry) {
    entries.put(entry.name(), entry);
  }

  private static String[] split(String option, String value, String form, String example) {
    int eq = value.indexOf('=');
    if (eq <= 0 || eq == value.length() - 1) {
      throw new ConfigException(
          option + " " + value + ": expected " + form + ", e.g. " + option + " " + example);
    }
    String name = value.substring(0, eq).trim();
    if (!name.matches("[A-Za-z][A-Za-z0-9_-]*")) {
      throw new ConfigException(
          option
              + " "
              + value
              + ": "
              + name
              + " cannot be a namespace; use letters, digits, - and _, starting with a letter");
    }
    return new String[] {name, value.substring(eq + 1).trim()};
  }

  /** Splits a command line as a shell would for words: spaces, 'single' and "double" quotes, \. */
  static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else if (c == '\\' && quote == '"' && i + 1 < line.length()) {
          word.append(line.charAt(++i));
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (c == '\\' && i + 1 < line.length()) {
        word.append(line.charAt(++i));
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (quote != 0) {
      throw new ConfigException("unclosed " + quote + " quote in: " + line);
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }
}
