package dev.alkdev.operations.mcp.internal;

/** How a server's text (an error body, a message) appears in this client's messages. */
final class Texts {
  private Texts() {}

  /** One line: HTML tags and runs of white space out, at most 200 characters. */
  static String oneLine(String text) {
    String line = text.replaceAll("<[^>]{0,200}>", " ").replaceAll("\\s+", " ").strip();
    return line.length() <= 200 ? line : line.substring(0, 200) + "...";
  }
}
