package dev.alkdev.operations.envelope;

import dev.alkdev.operations.envelope.internal.EnvelopeReader;
import dev.alkdev.operations.envelope.internal.EnvelopeSchemas;
import dev.alkdev.operations.schema.Schema;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The seeds' envelope functions: factories, {@code unwrap}, {@code isResponseEnvelope}, the JSON
 * mapping and the envelope's JSON Schema. Import them statically to read like the seeds:
 *
 * <pre>{@code
 * import static dev.alkdev.operations.envelope.Envelopes.*;
 *
 * ResponseEnvelope<JsonNode> envelope = localEnvelope(data, "demo.echo");
 * JsonNode value = unwrap(envelope);
 * }</pre>
 *
 * <p>Adapters build envelopes with these factories, not by hand, so that every envelope carries a
 * well-formed meta.
 */
public final class Envelopes {

  private Envelopes() {}

  /**
   * The envelope of an in-process result, stamped now.
   *
   * @param data the result; for a handler that returned nothing, {@code NullNode.getInstance()}
   * @param operationId the full {@code namespace.name} id of the operation
   */
  public static <T> ResponseEnvelope<T> localEnvelope(T data, String operationId) {
    return new ResponseEnvelope<>(data, LocalResponseMeta.now(operationId));
  }

  /**
   * The envelope of an HTTP response whose headers each have one value (the seeds' form).
   *
   * @param headers header name (any case; lower-cased) to value; values of a repeated header joined
   *     with {@code ", "}
   * @param contentType the response's {@code Content-Type}, {@code ""} when it had none
   */
  public static <T> ResponseEnvelope<T> httpEnvelope(
      T data, int statusCode, Map<String, String> headers, String contentType) {
    return new ResponseEnvelope<>(data, HttpResponseMeta.of(statusCode, headers, contentType));
  }

  /**
   * The envelope of an HTTP response with a meta built beforehand, for instance by {@link
   * HttpResponseMeta#ofHeaderValues} so that repeated headers such as {@code Set-Cookie} keep their
   * separate values.
   */
  public static <T> ResponseEnvelope<T> httpEnvelope(T data, HttpResponseMeta meta) {
    return new ResponseEnvelope<>(data, meta);
  }

  /**
   * The envelope of an MCP tool result (the seeds' signature; {@code meta} is MCP's {@code _meta}).
   * By the seeds' rule the data is the structured content when there is some, else the content
   * blocks; the caller passes it.
   */
  public static <T> ResponseEnvelope<T> mcpEnvelope(
      T data,
      boolean isError,
      List<McpContentBlock> content,
      Optional<ObjectNode> structuredContent,
      Optional<ObjectNode> meta) {
    return new ResponseEnvelope<>(
        data, new McpResponseMeta(isError, content, structuredContent, meta));
  }

  /** The envelope of an MCP tool result without structured content or {@code _meta}. */
  public static <T> ResponseEnvelope<T> mcpEnvelope(
      T data, boolean isError, List<McpContentBlock> content) {
    return new ResponseEnvelope<>(data, McpResponseMeta.of(isError, content));
  }

  /** The envelope of an MCP tool result with a meta built beforehand. */
  public static <T> ResponseEnvelope<T> mcpEnvelope(T data, McpResponseMeta meta) {
    return new ResponseEnvelope<>(data, meta);
  }

  /**
   * The data, for callers that do not need the meta: {@code envelope.data()}, named so that every
   * place that drops the meta says so and can be searched for.
   */
  public static <T> T unwrap(ResponseEnvelope<T> envelope) {
    return Objects.requireNonNull(envelope, "envelope").data();
  }

  /**
   * Whether {@code value} is an envelope, by the seeds' rule: it has {@code data} and {@code meta}
   * keys (the data may be null), and {@code meta} is an object whose {@code source} is {@code
   * "local"}, {@code "http"} or {@code "mcp"}. True for a {@link ResponseEnvelope}, and for a
   * {@link JsonNode} or {@link Map} of that shape (a meta inside a map may be a map, a JSON object
   * or a {@link ResponseMeta}). Other objects (records, beans, arrays, lists) are not inspected:
   * convert them to a {@code JsonNode} first to apply the rule to their properties.
   *
   * <p>This detects, it does not validate: {@link #fromJson} still rejects a detected envelope
   * whose meta is malformed.
   */
  public static boolean isResponseEnvelope(Object value) {
    if (value instanceof ResponseEnvelope) {
      return true;
    }
    if (value instanceof JsonNode node) {
      return node.isObject() && node.has("data") && isMeta(node.get("meta"));
    }
    if (value instanceof Map<?, ?> map) {
      try {
        return map.containsKey("data") && map.containsKey("meta") && isMeta(map.get("meta"));
      } catch (ClassCastException | NullPointerException e) {
        return false; // a map whose keys cannot be strings (a TreeMap of Integer, say)
      }
    }
    return false;
  }

  private static boolean isMeta(Object meta) {
    if (meta instanceof ResponseMeta) {
      return true;
    }
    if (meta instanceof JsonNode node) {
      JsonNode source = node.isObject() ? node.get("source") : null;
      return source != null
          && source.isString()
          && ResponseSource.fromWireName(source.stringValue()).isPresent();
    }
    if (meta instanceof Map<?, ?> map) {
      Object source;
      try {
        source = map.get("source");
      } catch (ClassCastException | NullPointerException e) {
        return false;
      }
      return source instanceof String name && ResponseSource.fromWireName(name).isPresent();
    }
    return false;
  }

  /**
   * The envelope as the seeds' JSON; {@link ResponseEnvelope#toJson()}. Jackson writes the same
   * JSON for a {@code ResponseEnvelope} anywhere in a value.
   *
   * @throws IllegalArgumentException if the data cannot be converted to JSON
   */
  public static ObjectNode toJson(ResponseEnvelope<?> envelope) {
    return Objects.requireNonNull(envelope, "envelope").toJson();
  }

  /**
   * Reads an envelope from the seeds' JSON. What {@link #toJson} writes reads back equal, and its
   * JSON writes back unchanged. Fields the envelope and its metas do not define are ignored; fields
   * of content blocks, resources and annotations are kept; an optional field set to null counts as
   * absent; header names are lower-cased. The envelope shares nodes with {@code json}.
   *
   * @throws dev.alkdev.operations.CallError with code {@code PROTOCOL_ERROR} if {@code json} is not
   *     an envelope; the message and {@code details().pointer} name the wrong field
   */
  public static ResponseEnvelope<JsonNode> fromJson(JsonNode json) {
    return EnvelopeReader.read(json);
  }

  /**
   * The JSON Schema of an envelope (draft 2020-12), the seeds' {@code ResponseEnvelopeSchema}: what
   * {@code call.responded.output} must match. Compiled once, on first use.
   */
  public static Schema responseEnvelopeSchema() {
    return EnvelopeSchemas.RESPONSE_ENVELOPE;
  }

  /** The JSON Schema of a meta alone (the seeds' {@code ResponseMetaSchema}). */
  public static Schema responseMetaSchema() {
    return EnvelopeSchemas.RESPONSE_META;
  }

  /** The JSON Schema of one MCP content block (the seeds' {@code MCPContentBlockSchema}). */
  public static Schema mcpContentBlockSchema() {
    return EnvelopeSchemas.MCP_CONTENT_BLOCK;
  }
}
