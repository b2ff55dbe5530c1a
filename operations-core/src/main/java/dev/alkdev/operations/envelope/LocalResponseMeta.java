package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.alkdev.operations.envelope.internal.WireJson;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The meta of an in-process operation's result.
 *
 * @param operationId the full {@code namespace.name} id of the operation that produced the result
 * @param timestamp when the result was wrapped, in Unix epoch milliseconds (the seeds' {@code
 *     Date.now()}; a {@code long} so that it crosses the wire as the same JSON integer)
 */
public record LocalResponseMeta(String operationId, long timestamp) implements ResponseMeta {

  public LocalResponseMeta {
    Objects.requireNonNull(operationId, "operationId");
    if (operationId.isEmpty()) {
      throw new IllegalArgumentException("operationId must not be empty");
    }
  }

  /** The meta of a result of {@code operationId} wrapped now. */
  public static LocalResponseMeta now(String operationId) {
    return new LocalResponseMeta(operationId, System.currentTimeMillis());
  }

  @Override
  public ResponseSource source() {
    return ResponseSource.LOCAL;
  }

  @Override
  @JsonValue
  public ObjectNode toJson() {
    ObjectNode json = WireJson.object();
    json.put("source", source().wireName());
    json.put("operationId", operationId);
    json.set("timestamp", WireJson.integer(timestamp));
    return json;
  }
}
