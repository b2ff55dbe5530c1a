package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

  /** Input that could not be read or parsed; the message says where and why. */
  public static final class BadInput extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadInput(String message, Throwable cause) {
      super(message, cause);
    }
  }

  public static JsonNode read(String argument, InputStream stdin) {
    return read(argument, stdin, Optional.empty());
  }

  /**
   * Reads {@code argument}'s input; from stdin, waits for its end at most {@code within} (a pipe
   * whose writer never closes it would otherwise hold the command forever): past that, the command
   * fails with DEADLINE_EXCEEDED.
   */
  public static JsonNode read(String argument, InputStream stdin, Optional<Duration> within) {
    String text;
    String origin;
    if (argument.equals("-")) {
      origin = "stdin";
      text = readStdin(stdin, within);
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

  private static String readStdin(InputStream stdin, Optional<Duration> within) {
    CompletableFuture<byte[]> read = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                read.complete(stdin.readAllBytes());
              } catch (IOException | RuntimeException e) {
                read.completeExceptionally(e);
              }
            },
            "ops-stdin");
    reader.setDaemon(true); // one blocked on a pipe that never ends must not keep ops alive
    reader.start();
    try {
      byte[] bytes =
          within.isPresent()
              ? read.get(within.get().toMillis(), TimeUnit.MILLISECONDS)
              : read.get();
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (TimeoutException e) {
      throw CallError.builder(
              ErrorCode.DEADLINE_EXCEEDED,
              "the input from stdin did not end within "
                  + within.get().toMillis()
                  + "ms (--timeout): close the pipe, or give the JSON with --input")
          .retryable(false)
          .build();
    } catch (ExecutionException e) {
      throw new BadInput("cannot read the input from stdin: " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.CANCELLED, "interrupted while reading the input from stdin");
    }
  }

  /** A location Jackson writes into a message, with the words that lead to it. */
  private static final java.util.regex.Pattern SOURCE_EXCERPT =
      java.util.regex.Pattern.compile("\\s*\\(?(start marker at )?\\[Source: [^\\]]*\\]\\)?");

  /** "at line L, column C: what" from a Jackson error, without its source excerpt. */
  static String describe(JacksonException e) {
    TokenStreamLocation location = e.getLocation();
    String what = e.getOriginalMessage();
    // Jackson's message can run over several lines; the first says what went wrong.
    int newline = what == null ? -1 : what.indexOf('\n');
    if (newline > 0) {
      what = what.substring(0, newline);
    }
    if (what != null) {
      // "(start marker at [Source: REDACTED (...); byte offset: #UNKNOWN])": Jackson's internals
      what = SOURCE_EXCERPT.matcher(what).replaceAll("").trim();
    }
    if (location == null || location.getLineNr() < 0) {
      return ": " + what;
    }
    return "at line " + location.getLineNr() + ", column " + location.getColumnNr() + ": " + what;
  }
}
