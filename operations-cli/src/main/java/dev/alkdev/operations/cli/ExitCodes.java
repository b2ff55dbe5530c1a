package dev.alkdev.operations.cli;

import dev.alkdev.operations.ErrorCode;

/**
 * The exit status of {@code ops}: 0 when the command did its job, 2 for a mistake in how it was
 * called, and one code per {@link ErrorCode} so scripts can tell failures apart without parsing
 * messages. The table is printed by {@code ops --help} and in the module's README.
 */
public final class ExitCodes {
  private ExitCodes() {}

  public static final int OK = 0;

  /** Something unexpected went wrong inside ops itself (a bug): the message says what. */
  public static final int SOFTWARE = 1;

  /** Wrong options or arguments, or the wrong command for the operation's type. */
  public static final int USAGE = 2;

  public static final int INVALID_INPUT = 3;
  public static final int OPERATION_NOT_FOUND = 4;
  public static final int UNAUTHENTICATED = 5;
  public static final int ACCESS_DENIED = 6;
  public static final int DEADLINE_EXCEEDED = 7;
  public static final int CANCELLED = 8;
  public static final int NO_RESPONDERS = 9;
  public static final int UNAVAILABLE = 10;
  public static final int RESOURCE_EXHAUSTED = 11;
  public static final int PROTOCOL_ERROR = 12;
  public static final int EXECUTION_ERROR = 13;

  /** The configuration (file or flags) is wrong: a literal secret, a missing field, bad YAML. */
  public static final int CONFIG = 14;

  /** A configured source could not be loaded (document unreachable, server did not start). */
  public static final int SOURCE_FAILED = 15;

  /**
   * The call ran, and the tool said it failed: an MCP result with {@code isError: true}. Its text
   * is printed on stderr; the data (the error's content) on stdout, as for a success.
   */
  public static final int TOOL_ERROR = 16;

  /** Stopped by Ctrl-C (128 + SIGINT, as shells report it). */
  public static final int INTERRUPTED = 130;

  /** The exit code for a call that failed with {@code code}. */
  public static int of(ErrorCode code) {
    return switch (code) {
      case INVALID_INPUT -> INVALID_INPUT;
      case OPERATION_NOT_FOUND -> OPERATION_NOT_FOUND;
      case UNAUTHENTICATED -> UNAUTHENTICATED;
      case ACCESS_DENIED -> ACCESS_DENIED;
      case DEADLINE_EXCEEDED -> DEADLINE_EXCEEDED;
      case CANCELLED -> CANCELLED;
      case NO_RESPONDERS -> NO_RESPONDERS;
      case UNAVAILABLE -> UNAVAILABLE;
      case RESOURCE_EXHAUSTED -> RESOURCE_EXHAUSTED;
      case PROTOCOL_ERROR -> PROTOCOL_ERROR;
      case EXECUTION_ERROR -> EXECUTION_ERROR;
    };
  }
}
