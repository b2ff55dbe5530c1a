package dev.alkdev.operations.envelope;

import tools.jackson.databind.node.ObjectNode;

/**
 * What produced a result, discriminated on {@link #source()}. The set is closed (sealed): it is
 * ours, and envelope detection depends on it. Dispatch with {@code instanceof}:
 *
 * <pre>{@code
 * if (envelope.meta() instanceof HttpResponseMeta http && http.statusCode() == 206) { ... }
 * }</pre>
 */
public sealed interface ResponseMeta permits LocalResponseMeta, HttpResponseMeta, McpResponseMeta {

  /** The discriminant, written as {@code meta.source}. */
  ResponseSource source();

  /**
   * This meta as the seeds' JSON, {@code source} first. Also what Jackson writes for it. Shares the
   * JSON values it holds ({@code structuredContent}, say) with the returned tree.
   */
  ObjectNode toJson();
}
