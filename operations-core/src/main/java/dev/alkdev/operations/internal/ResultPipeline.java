package dev.alkdev.operations.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/**
 * The seeds' shared result pipeline, used by {@code execute}, {@code subscribe} and the call
 * protocol alike: detect an envelope (pass it through) or wrap the raw value in a local envelope,
 * then cast {@code data} to the output schema, then validate it and log a warning on mismatch. Cast
 * comes before validation, so warnings describe the data as it is returned.
 */
public final class ResultPipeline {
  private static final Logger LOG = LoggerFactory.getLogger(ResultPipeline.class);
  private static final RateLimitedLog OUTPUT_MISMATCH = RateLimitedLog.of(LOG);

  private ResultPipeline() {}

  /** Turns whatever a handler returned (or a stream yielded) into the envelope a caller gets. */
  public static ResponseEnvelope<JsonNode> process(OperationSpec spec, Object result) {
    ResponseEnvelope<JsonNode> envelope = detectOrWrap(spec.id(), result);
    Schema output = spec.outputSchema();
    if (output.isUnknown() || isToolError(envelope)) {
      return envelope;
    }
    JsonNode data = output.cast(envelope.data());
    List<SchemaError> errors = output.validate(data);
    if (!errors.isEmpty()) {
      OUTPUT_MISMATCH.warn(
          "Output of {} does not match its output schema ({} error(s)): {}",
          spec.id(),
          errors.size(),
          errors);
    }
    return data == envelope.data() ? envelope : new ResponseEnvelope<>(data, envelope.meta());
  }

  /**
   * An MCP tool's error result ({@code isError}) carries the error's content blocks, not the
   * output: checking it against the output schema would only warn about every failure.
   */
  private static boolean isToolError(ResponseEnvelope<JsonNode> envelope) {
    return envelope.meta() instanceof McpResponseMeta mcp && mcp.isError();
  }

  private static ResponseEnvelope<JsonNode> detectOrWrap(String operationId, Object result) {
    if (result instanceof ResponseEnvelope<?> envelope) {
      return envelope.data() instanceof JsonNode
          ? castData(envelope)
          : new ResponseEnvelope<>(toJson(operationId, envelope.data()), envelope.meta());
    }
    JsonNode data = toJson(operationId, result);
    // The seeds detect envelopes by shape, so an envelope that crossed a JSON boundary (or was
    // built as a tree) passes through too.
    if (data.isObject() && Envelopes.isResponseEnvelope(data)) {
      try {
        return Envelopes.fromJson(data);
      } catch (RuntimeException e) {
        // Looks like an envelope but is malformed: treat it as plain data, as a value it is.
        LOG.debug("Result of {} has an envelope's shape but is not one: {}", operationId, e);
      }
    }
    return Envelopes.localEnvelope(data, operationId);
  }

  @SuppressWarnings("unchecked")
  private static ResponseEnvelope<JsonNode> castData(ResponseEnvelope<?> envelope) {
    return (ResponseEnvelope<JsonNode>) envelope;
  }

  /** A handler's value as JSON: nothing becomes null, trees stay, the rest goes through Jackson. */
  public static JsonNode toJson(String operationId, Object value) {
    if (value == null) {
      return NullNode.getInstance();
    }
    if (value instanceof JsonNode node) {
      return node;
    }
    // The common scalars skip Jackson's serialiser: streams pay this once per item.
    if (value instanceof String text) {
      return Json.nodes().stringNode(text);
    }
    if (value instanceof Integer number) {
      return Json.nodes().numberNode(number);
    }
    if (value instanceof Long number) {
      return Json.nodes().numberNode(number);
    }
    if (value instanceof Boolean flag) {
      return Json.nodes().booleanNode(flag);
    }
    if (value instanceof Double number) {
      return Json.nodes().numberNode(number);
    }
    try {
      return Json.mapper().valueToTree(value);
    } catch (JacksonException | IllegalArgumentException e) {
      throw CallError.of(
          ErrorCode.EXECUTION_ERROR,
          "Result of " + operationId + " cannot be converted to JSON: " + value.getClass(),
          e);
    }
  }
}
