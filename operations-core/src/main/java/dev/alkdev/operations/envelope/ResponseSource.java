package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/**
 * Where a result came from: the closed set of {@code meta.source} values an envelope is detected
 * by. A new source is a new constant here, a new {@link ResponseMeta} record, and a new branch of
 * the envelope schema.
 */
public enum ResponseSource {
  /** An in-process handler ({@link LocalResponseMeta}). */
  LOCAL("local"),
  /** An HTTP response, from an OpenAPI operation or an SSE stream ({@link HttpResponseMeta}). */
  HTTP("http"),
  /** An MCP tool result ({@link McpResponseMeta}). */
  MCP("mcp");

  private final String wireName;

  ResponseSource(String wireName) {
    this.wireName = wireName;
  }

  /**
   * The value of {@code meta.source} on the wire: {@code "local"}, {@code "http"}, {@code "mcp"}.
   */
  @JsonValue
  public String wireName() {
    return wireName;
  }

  /** The source whose wire name is exactly {@code wireName} (case matters), if there is one. */
  public static Optional<ResponseSource> fromWireName(String wireName) {
    for (ResponseSource source : values()) {
      if (source.wireName.equals(wireName)) {
        return Optional.of(source);
      }
    }
    return Optional.empty();
  }
}
