package dev.alkdev.operations.sse;

/**
 * Bounds on what one SSE stream may make the parser buffer, so a server cannot exhaust memory.
 * Exceeding one fails the stream with {@link dev.alkdev.operations.ErrorCode#RESOURCE_EXHAUSTED}.
 *
 * @param maxLineBytes the longest line, in bytes without its line end
 * @param maxEventBytes the most bytes of {@code data} one event may collect
 */
public record SseLimits(int maxLineBytes, int maxEventBytes) {

  /** 1 MiB per line. */
  public static final int DEFAULT_MAX_LINE_BYTES = 1 << 20;

  /** 8 MiB per event. */
  public static final int DEFAULT_MAX_EVENT_BYTES = 8 << 20;

  public SseLimits {
    if (maxLineBytes < 1) {
      throw new IllegalArgumentException("maxLineBytes must be at least 1, was " + maxLineBytes);
    }
    if (maxEventBytes < 1) {
      throw new IllegalArgumentException("maxEventBytes must be at least 1, was " + maxEventBytes);
    }
  }

  /** 1 MiB per line, 8 MiB per event. */
  public static SseLimits defaults() {
    return new SseLimits(DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_EVENT_BYTES);
  }

  public SseLimits withMaxLineBytes(int maxLineBytes) {
    return new SseLimits(maxLineBytes, maxEventBytes);
  }

  public SseLimits withMaxEventBytes(int maxEventBytes) {
    return new SseLimits(maxLineBytes, maxEventBytes);
  }
}
