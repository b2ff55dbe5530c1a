package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.alkdev.operations.envelope.internal.EnvelopeReader;
import dev.alkdev.operations.envelope.internal.WireJson;
import dev.alkdev.operations.internal.Json;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of an operation, whatever its source: its output ({@code data}) and where it came from
 * ({@code meta}). Build envelopes with the factories of {@link Envelopes}.
 *
 * <p><b>{@code data} is never Java {@code null}.</b> The envelopes the library passes around are
 * untyped, {@code ResponseEnvelope<JsonNode>}, and a result without data (a void handler) has
 * {@code data} = {@link NullNode} (JSON {@code null}). The seeds use {@code undefined} there, but
 * {@code undefined} cannot cross the wire: {@code JSON.stringify} drops the {@code data} key, and
 * the far side's {@code "data" in obj} test would then no longer see an envelope. JSON {@code null}
 * keeps the key, so the envelope survives every transport.
 *
 * <p>The {@code data} value is shared, not copied: treat it as read-only.
 *
 * @param <T> the type of the data; {@link JsonNode} for untyped envelopes
 * @param data the operation's output; {@link NullNode} when there is none
 * @param meta where the result came from
 */
public record ResponseEnvelope<T>(T data, ResponseMeta meta) {

  public ResponseEnvelope {
    if (data == null) {
      throw new NullPointerException(
          "data is null: an envelope always has data; use NullNode.getInstance() (JSON null) when"
              + " the operation returned nothing");
    }
    Objects.requireNonNull(meta, "meta");
  }

  /**
   * Reads an envelope from the seeds' JSON; the same as {@link Envelopes#fromJson(JsonNode)}. It is
   * also how Jackson reads a {@code ResponseEnvelope} (read it as {@code
   * ResponseEnvelope<JsonNode>}: the data stays JSON, whatever type parameter is asked for).
   *
   * @throws dev.alkdev.operations.CallError with code {@code PROTOCOL_ERROR} naming the field that
   *     is wrong
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ResponseEnvelope<JsonNode> fromJson(JsonNode json) {
    return EnvelopeReader.read(json);
  }

  /** Shorthand for {@code meta().source()}. */
  public ResponseSource source() {
    return meta.source();
  }

  /**
   * The data converted to {@code type} by Jackson (a record, a {@code Map}, {@code String}, ...);
   * the data itself when it already is one. Properties the type does not declare are ignored.
   *
   * @throws IllegalArgumentException if the data cannot be converted to {@code type}, or is JSON
   *     {@code null} and {@code type} is not a JSON type (ask for an {@code Optional} through
   *     {@link #dataAs(TypeReference)} when the data may be null)
   */
  public <R> R dataAs(Class<R> type) {
    Objects.requireNonNull(type, "type");
    if (type.isInstance(data)) {
      return type.cast(data);
    }
    R converted;
    try {
      converted = Json.mapper().convertValue(data, type);
    } catch (IllegalArgumentException | JacksonException e) {
      throw conversionFailed(type.getTypeName(), e);
    }
    return nonNull(converted, type.getTypeName());
  }

  /**
   * The data converted to a generic type, {@code new TypeReference<List<Item>>() {}} say.
   *
   * @throws IllegalArgumentException as {@link #dataAs(Class)}
   */
  public <R> R dataAs(TypeReference<R> type) {
    Objects.requireNonNull(type, "type");
    R converted;
    try {
      converted = Json.mapper().convertValue(data, type);
    } catch (IllegalArgumentException | JacksonException e) {
      throw conversionFailed(type.getType().getTypeName(), e);
    }
    return nonNull(converted, type.getType().getTypeName());
  }

  /** The same meta with other data: what normalising the data against an output schema needs. */
  public <U> ResponseEnvelope<U> withData(U data) {
    return new ResponseEnvelope<>(data, meta);
  }

  /**
   * This envelope as the seeds' JSON ({@code {"data": ..., "meta": {...}}}); also what Jackson
   * writes for it. Data that is not already a {@link JsonNode} is converted with the library's
   * mapper; JSON data is shared with the returned tree, not copied.
   *
   * @throws IllegalArgumentException if the data cannot be converted to JSON
   */
  @JsonValue
  public ObjectNode toJson() {
    ObjectNode json = WireJson.object();
    json.set("data", dataAsJson());
    json.set("meta", meta.toJson());
    return json;
  }

  private JsonNode dataAsJson() {
    if (data instanceof JsonNode node) {
      return node;
    }
    try {
      return Json.mapper().valueToTree(data);
    } catch (IllegalArgumentException | JacksonException e) {
      throw new IllegalArgumentException(
          "The data of this envelope ("
              + data.getClass().getName()
              + ") cannot be converted to JSON: "
              + e.getMessage(),
          e);
    }
  }

  private IllegalArgumentException conversionFailed(String typeName, Exception cause) {
    String message =
        cause instanceof JacksonException jackson
            ? jackson.getOriginalMessage()
            : cause.getMessage();
    return new IllegalArgumentException(
        "Cannot convert the data of this "
            + meta.source().wireName()
            + " envelope to "
            + typeName
            + ": "
            + message,
        cause);
  }

  private <R> R nonNull(R converted, String typeName) {
    if (converted == null) {
      throw new IllegalArgumentException(
          "The data of this "
              + meta.source().wireName()
              + " envelope is JSON null, not a "
              + typeName
              + " (the operation returned nothing); ask for JsonNode or an Optional instead");
    }
    return converted;
  }
}
