package dev.alkdev.operations.cli.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** Reads {@code --input}: literal JSON, {@code @FILE}, or {@code -} for stdin. */
public final class JsonInput {
  private JsonInput() {}

  /**
   * Strict: trailing garbage after the value is an error, not silently ignored, and so is a key
   * given twice in one object (the call protocol refuses duplicates; last-wins would send what the
   * user did not mean).
   */
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  /** The input a call gets when {@code --input} is not given. */
  public static final String NONE = "{}";

  /** Input that could not be read or parsed; the message says where and why. */
  public static final class BadInput extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadInput(String message, Throwable cause) {
      super(message, cause);
    }
  }

  public static JsonNode read(String argument, InputStream stdin) {
    String text;
    String origin;
    if (argument.equals("-")) {
      origin = "stdin";
      try {
        text = new String(stdin.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new BadInput("cannot read the input from stdin: " + e.getMessage(), e);
      }
    } else if (argument.startsWith("@")) {
      Path file = Path.of(argument.substring(1));
      origin = file.toString();
      try {
        text = Files.readString(file);
      } catch (NoSuchFileException e) {
        throw new BadInput("input file " + file + " does not exist", e);
      } catch (IOException e) {
        throw new BadInput("cannot read the input file " + file + ": " + e.getMessage(), e);
      }
    } else {
      origin = "--input";
      text = argument;
    }
    if (text.isBlank()) {
      throw new BadInput(
          "the input from " + origin + " is empty; give a JSON value, e.g. {}", null);
    }
    try {
      return MAPPER.readTree(text);
    } catch (JacksonException e) {
      throw new BadInput("invalid JSON in " + origin + " " + describe(e), e);
    }
  }

  /** "at line L, column C: what" from a Jackson error, without its source excerpt. */
  static String describe(JacksonException e) {
    TokenStreamLocation location = e.getLocation();
    String what = e.getOriginalMessage();
    // Jackson's message can run over several lines; the first says what went wrong.
    int newline = what == null ? -1 : what.indexOf('\n');
    if (newline > 0) {
      what = what.substring(0, newline);
    }
    if (location == null || location.getLineNr() < 0) {
      return ": " + what;
    }
    return "at line " + location.getLineNr() + ", column " + location.getColumnNr() + ": " + what;
  }
}
