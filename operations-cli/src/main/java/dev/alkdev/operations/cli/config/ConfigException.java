package dev.alkdev.operations.cli.config;

/**
 * The configuration (a file or the one-off flags) is wrong. The message names the place (file and
 * entry) and says how to fix it; {@code ops} prints it and exits with {@code ExitCodes.CONFIG}.
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
