package dev.alkdev.operations.cli.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import picocli.CommandLine;

/**
 * Parses {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1h}, a bare number of seconds or ISO-8601.
 */
public final class Durations implements CommandLine.ITypeConverter<Duration> {

  @Override
  public Duration convert(String value) {
    Duration parsed = parse(value);
    if (parsed.isNegative() || parsed.isZero()) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a positive duration; write e.g. 30s, 500ms, 2m or 1h");
    }
    return parsed;
  }

  private static Duration parse(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    try {
      if (v.startsWith("pt") || v.startsWith("p")) {
        return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
      }
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      if (v.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
      }
      if (v.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
      }
      if (v.endsWith("h")) {
        return Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
      }
      return Duration.ofSeconds(Long.parseLong(v));
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration; write e.g. 30s, 500ms, 2m or 1h");
    }
  }
}
