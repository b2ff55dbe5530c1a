package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.schema.SchemaError;
import java.io.PrintWriter;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How {@code ops} writes: JSON (pretty for people, one line per item for streams), aligned tables,
 * and errors that say what to do next. Colour only when asked for (see {@link
 * Terminal#colourByDefault}).
 */
public final class Output {
  private final Terminal terminal;
  private final boolean colour;

  public Output(Terminal terminal, boolean colour) {
    this.terminal = terminal;
    this.colour = colour;
  }

  public PrintWriter out() {
    return terminal.out();
  }

  public PrintWriter err() {
    return terminal.err();
  }

  public String bold(String text) {
    return colour ? "\u001b[1m" + text + "\u001b[0m" : text;
  }

  public String dim(String text) {
    return colour ? "\u001b[2m" + text + "\u001b[0m" : text;
  }

  private String yellow(String text) {
    return colour ? "\u001b[33m" + text + "\u001b[0m" : text;
  }

  private String red(String text) {
    return colour ? "\u001b[31m" + text + "\u001b[0m" : text;
  }

  public void pretty(JsonNode json) {
    terminal
        .out()
        .println(JsonInput.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(json));
    terminal.out().flush();
  }

  public void line(JsonNode json) {
    terminal.out().println(JsonInput.MAPPER.writeValueAsString(json));
    terminal.out().flush();
  }

  /** "warning: message", then hints, on stderr: something works, but not as the user meant. */
  public void warning(String message, String... hints) {
    report(yellow("warning:"), message, hints);
  }

  /** "error: message", then hints, on stderr. */
  public void error(String message, String... hints) {
    report(red("error:"), message, hints);
  }

  private void report(String label, String message, String... hints) {
    PrintWriter err = terminal.err();
    err.println(label + " " + message);
    for (String hint : hints) {
      err.println("  " + hint);
    }
    err.flush();
  }

  /**
   * An error that is not a call's, as {@code {"error": {"code", "message", "hints"}}} on one line
   * of stderr, for {@code --json}.
   */
  public void jsonError(String code, String message, List<String> hints) {
    ObjectNode body = JsonInput.MAPPER.createObjectNode();
    ObjectNode e = body.putObject("error");
    e.put("code", code);
    e.put("message", message);
    ArrayNode list = e.putArray("hints");
    hints.forEach(list::add);
    terminal.err().println(JsonInput.MAPPER.writeValueAsString(body));
    terminal.err().flush();
  }

  /** A failed call: code and message, then each validation error as "pointer: message". */
  public void callError(CallError error, boolean json) {
    if (json) {
      // The error object of every surface: the HTTP gateway's body, the MCP server's _meta.
      ObjectNode body = JsonInput.MAPPER.createObjectNode();
      body.set("error", error.toJson());
      terminal.err().println(JsonInput.MAPPER.writeValueAsString(body));
      terminal.err().flush();
      return;
    }
    PrintWriter err = terminal.err();
    err.println(red("error:") + " " + error.code() + ": " + headline(error));
    for (SchemaError v : error.validationErrors()) {
      err.println("  " + bold(pointer(v)) + ": " + v.message());
    }
    error
        .details()
        .ifPresent(d -> err.println("  details: " + JsonInput.MAPPER.writeValueAsString(d)));
    err.flush();
  }

  /**
   * The message without the problems it lists (CallError.invalid's "Invalid input of X: /a: ...;
   * /b: ..."), which are printed one per line below it: each once, in one pointer style.
   */
  static String headline(CallError error) {
    String message = String.valueOf(error.getMessage());
    int colon = message.indexOf(':');
    if (error.validationErrors().isEmpty() || !message.startsWith("Invalid ") || colon < 0) {
      return message;
    }
    int problems = error.validationErrors().size();
    return message.substring(0, colon)
        + " ("
        + problems
        + (problems == 1 ? " problem)" : " problems)");
  }

  /** The JSON pointer of a validation error; "/" for the input as a whole. */
  static String pointer(SchemaError error) {
    String path = error.instancePath();
    return path == null || path.isEmpty() ? "/" : path;
  }

  /** Aligned columns; the last one is cut with "…" so a row fits {@code width} (0 = no limit). */
  public void table(List<String> headers, List<List<String>> rows, int width) {
    int columns = headers.size();
    int[] widths = new int[columns];
    for (int c = 0; c < columns; c++) {
      widths[c] = headers.get(c).length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    PrintWriter out = terminal.out();
    out.println(bold(format(headers, widths, width)));
    for (List<String> row : rows) {
      out.println(format(row, widths, width));
    }
    out.flush();
  }

  private static String format(List<String> cells, int[] widths, int width) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      String cell = cells.get(c).replace('\n', ' ');
      if (c == cells.size() - 1) {
        if (width > 0 && line.length() + cell.length() > width) {
          int room = Math.max(1, width - line.length() - 1);
          cell = cell.substring(0, Math.min(cell.length(), room)) + "…";
        }
        line.append(cell);
      } else {
        line.append(cell).append(" ".repeat(widths[c] - cell.length() + 2));
      }
    }
    return line.toString().stripTrailing();
  }
}
