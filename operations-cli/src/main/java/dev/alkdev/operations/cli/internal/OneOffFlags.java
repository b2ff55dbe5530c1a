package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.config.McpServerConfig;
import dev.alkdev.operations.cli.config.OpenApiSourceConfig;
import dev.alkdev.operations.cli.config.OpsConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one-off flags ({@code --openapi NAME=LOCATION}, {@code --base-url NAME=URL}, {@code
 * --mcp-stdio NAME='COMMAND ARGS...'}, {@code --mcp-url NAME=URL}) as configuration entries, on top
 * of the configuration file's: a flag's entry replaces the file's entry of the same name, and
 * {@code --base-url} may also point a file's document somewhere else.
 */
public final class OneOffFlags {
  private OneOffFlags() {}

  public static OpsConfig apply(
      OpsConfig file,
      List<String> openApi,
      List<String> baseUrls,
      List<String> mcpStdio,
      List<String> mcpUrls) {
    Map<String, OpenApiSourceConfig> documents = new LinkedHashMap<>();
    Map<String, McpServerConfig> servers = new LinkedHashMap<>();
    file.openApi().forEach(d -> documents.put(d.namespace(), d));
    file.mcpServers().forEach(s -> servers.put(s.name(), s));
    for (String flag : openApi) {
      String[] pair = split("--openapi", flag, "NAME=LOCATION", "petstore=./petstore.yaml");
      servers.remove(pair[0]);
      documents.put(
          pair[0], new OpenApiSourceConfig(pair[0], pair[1], Optional.empty(), Optional.empty()));
    }
    for (String flag : mcpStdio) {
      String[] pair =
          split("--mcp-stdio", flag, "NAME='COMMAND ARGS...'", "files='npx -y server /tmp'");
      List<String> words = words(pair[1]);
      if (words.isEmpty()) {
        throw new ConfigException("--mcp-stdio " + flag + ": the command is empty");
      }
      documents.remove(pair[0]);
      servers.put(
          pair[0],
          new McpServerConfig.Stdio(
              pair[0], words.get(0), words.subList(1, words.size()), Map.of(), Optional.empty()));
    }
    for (String flag : mcpUrls) {
      String[] pair = split("--mcp-url", flag, "NAME=URL", "remote=http://localhost:3000/mcp");
      documents.remove(pair[0]);
      servers.put(pair[0], new McpServerConfig.Http(pair[0], pair[1], Map.of(), Optional.empty()));
    }
    for (String flag : baseUrls) {
      String[] pair = split("--base-url", flag, "NAME=URL", "petstore=http://localhost:8080");
      OpenApiSourceConfig document = documents.get(pair[0]);
      if (document == null) {
        throw new ConfigException(
            "--base-url "
                + flag
                + ": there is no OpenAPI document named "
                + pair[0]
                + "; add --openapi "
                + pair[0]
                + "=LOCATION or an openapi entry in the configuration file");
      }
      documents.put(pair[0], document.withBaseUrl(pair[1]));
    }
    return new OpsConfig(new ArrayList<>(documents.values()), new ArrayList<>(servers.values()));
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
