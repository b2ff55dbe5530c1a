package dev.alkdev.operations.transport.websocket.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The frame layout between a hub and its spokes (docs/websocket.md, "Frames"): a header line of
 * space-separated fields, a line feed, and the payload's bytes unchanged (possibly none). The
 * payload is never re-encoded, so a relay copies bytes and a spoke in any language needs no JSON
 * escaping of the events it carries.
 */
public final class Frames {
  /** The longest header line accepted: a topic, two numbers and an identity fit easily. */
  public static final int MAX_HEADER_BYTES = 16 * 1024;

  private Frames() {}

  /** A frame of {@code header} alone. */
  public static byte[] of(String header) {
    byte[] head = header.getBytes(StandardCharsets.UTF_8);
    byte[] frame = new byte[head.length + 1];
    System.arraycopy(head, 0, frame, 0, head.length);
    frame[head.length] = '\n';
    return frame;
  }

  /** A frame of {@code header} and {@code payload}. */
  public static byte[] of(String header, byte[] payload) {
    byte[] head = header.getBytes(StandardCharsets.UTF_8);
    byte[] frame = new byte[head.length + 1 + payload.length];
    System.arraycopy(head, 0, frame, 0, head.length);
    frame[head.length] = '\n';
    System.arraycopy(payload, 0, frame, head.length + 1, payload.length);
    return frame;
  }

  /** A received frame split into its header line and its payload. */
  public record Parsed(String header, byte[] payload) {}

  /**
   * Splits {@code frame}; null when it has no line feed within {@link #MAX_HEADER_BYTES} (not a
   * frame of this protocol).
   */
  public static Parsed parse(ByteBuffer frame) {
    int start = frame.position();
    int limit = frame.limit();
    int end = Math.min(limit, start + MAX_HEADER_BYTES + 1);
    for (int i = start; i < end; i++) {
      if (frame.get(i) == '\n') {
        byte[] head = new byte[i - start];
        frame.get(start, head);
        byte[] payload = new byte[limit - i - 1];
        frame.get(i + 1, payload);
        return new Parsed(new String(head, StandardCharsets.UTF_8), payload);
      }
    }
    return null;
  }

  /** A decimal id of a subscription or publish: 1 to 2^53-1, so JavaScript reads it exactly. */
  public static long id(String text) {
    if (text.isEmpty() || text.length() > 16) {
      return -1;
    }
    long value = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value >= 1 && value < (1L << 53) ? value : -1;
  }
}
