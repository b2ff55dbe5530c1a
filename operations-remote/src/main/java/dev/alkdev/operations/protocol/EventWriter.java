package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.LocalResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.remote.internal.ThreadRecyclers;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.BufferRecycler;
import tools.jackson.core.util.ByteArrayBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.BigIntegerNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.DoubleNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * Writes {@link CallEvent}s as the protocol's JSON: the tree {@link CallEvents#toJson} gives, the
 * bytes {@link CallEvents#encode} gives (streamed, without a tree), and the serving side's replies,
 * which always say something.
 */
final class EventWriter {
  private static final JsonMapper WRITER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .recyclerPool(ThreadRecyclers.POOL)
                  .streamWriteConstraints(
                      StreamWriteConstraints.builder()
                          .maxNestingDepth(CallEvents.MAX_NESTING_DEPTH)
                          .build())
                  .build())
          .build();

  private EventWriter() {}

  /**
   * The event as its JSON object. The fields a receiver needs to answer ({@code v}, {@code type},
   * {@code requestId}, {@code replyTo}) come first and the payload last, so that a receiver can
   * still read them from a message it cannot read whole (too large, too deep).
   */
  static ObjectNode toJson(CallEvent event) {
    Objects.requireNonNull(event, "event");
    ObjectNode json = Json.nodes().objectNode();
    json.put("v", CallEvents.PROTOCOL_VERSION);
    json.put("type", event.type());
    if (event instanceof CallEvent.Alive alive) {
      json.put("inbox", alive.inbox());
      return json;
    }
    json.put("requestId", ((CallEvent.CallScoped) event).requestId());
    if (event instanceof CallEvent.Requested r) {
      r.replyTo().ifPresent(topic -> json.put("replyTo", topic));
      json.put("operationId", r.operationId());
      r.parentRequestId().ifPresent(id -> json.put("parentRequestId", id));
      r.identity()
          .ifPresent(
              identity -> {
                ObjectNode who = json.putObject("identity");
                who.put("subject", identity.subject());
                ArrayNode scopes = who.putArray("scopes");
                identity.scopes().stream().sorted().forEach(scopes::add);
              });
      r.deadlineMillis().ifPresent(ms -> json.put("deadlineMs", ms));
      r.demand().ifPresent(n -> json.put("demand", n));
      if (!r.meta().isEmpty()) {
        ObjectNode meta = json.putObject("meta");
        r.meta().asMap().forEach(meta::put);
      }
      json.set("input", r.input());
    } else if (event instanceof CallEvent.Responded r) {
      json.set("output", Envelopes.toJson(r.output()));
    } else if (event instanceof CallEvent.Failed f) {
      ObjectNode error = json.putObject("error");
      error.put("code", f.code().name());
      error.put("message", f.message());
      error.put("retryable", f.retryable());
      f.details().ifPresent(d -> error.set("details", d));
    } else if (event instanceof CallEvent.Aborted a) {
      a.reason().ifPresent(reason -> json.put("reason", reason));
    } else if (event instanceof CallEvent.Demand d) {
      json.put("n", d.n());
    }
    return json;
  }

  /**
   * The event as UTF-8 JSON bytes.
   *
   * @throws CallError RESOURCE_EXHAUSTED (not retryable) if the event nests deeper than {@link
   *     #MAX_NESTING_DEPTH}: no receiver would read it
   */
  static byte[] encode(CallEvent event) {
    Objects.requireNonNull(event, "event");
    // Converting the envelope's data may fail (IllegalArgumentException), as in toJson: before any
    // byte is written.
    ObjectNode output =
        event instanceof CallEvent.Responded responded && !isPlainLocal(responded.output())
            ? Envelopes.toJson(responded.output())
            : null;
    // Written into the factory's recycled buffers, the way the mapper's writeValueAsBytes does:
    // the one array allocated is the result, of its exact size (a growing stream allocated two
    // more per event).
    BufferRecycler recycler = WRITER.tokenStreamFactory()._getBufferRecycler();
    ByteArrayBuilder bytes = new ByteArrayBuilder(recycler);
    try {
      try (JsonGenerator generator =
          WRITER.tokenStreamFactory().createGenerator(ObjectWriteContext.empty(), bytes)) {
        write(event, output, generator, false);
      } catch (NotPlain e) {
        // A payload with a node only the mapper writes (binary, a POJO): write it all with the
        // mapper's generator instead.
        bytes.reset();
        try (JsonGenerator generator = WRITER.createGenerator(bytes)) {
          write(event, output, generator, true);
        }
      }
      return bytes.getClearAndRelease();
    } catch (StreamConstraintsException e) {
      throw CallError.builder(
              ErrorCode.RESOURCE_EXHAUSTED,
              "The "
                  + event.type()
                  + " event nests deeper than the protocol's limit of "
                  + CallEvents.MAX_NESTING_DEPTH
                  + " levels")
          .retryable(false)
          .build();
    } catch (JacksonException e) {
      throw CallError.of(
          ErrorCode.PROTOCOL_ERROR,
          "The " + event.type() + " event cannot be written as JSON: " + e.getOriginalMessage(),
          e);
    } finally {
      bytes.release(); // after a failure: its buffer goes back too (a no-op after the result)
      recycler.releaseToPool();
    }
  }

  /**
   * Writes what {@link #toJson} builds, field for field in the same order, straight to the
   * generator: a tree per event cost more than the rest of encoding. The generator's constraints
   * keep the nesting limit.
   */
  private static void write(
      CallEvent event, ObjectNode output, JsonGenerator json, boolean mapper) {
    json.writeStartObject();
    json.writeNumberProperty("v", CallEvents.PROTOCOL_VERSION);
    json.writeStringProperty("type", event.type());
    if (event instanceof CallEvent.Alive alive) {
      json.writeStringProperty("inbox", alive.inbox());
      json.writeEndObject();
      return;
    }
    json.writeStringProperty("requestId", ((CallEvent.CallScoped) event).requestId());
    if (event instanceof CallEvent.Requested r) {
      if (r.replyTo().isPresent()) {
        json.writeStringProperty("replyTo", r.replyTo().get());
      }
      json.writeStringProperty("operationId", r.operationId());
      if (r.parentRequestId().isPresent()) {
        json.writeStringProperty("parentRequestId", r.parentRequestId().get());
      }
      if (r.identity().isPresent()) {
        Identity identity = r.identity().get();
        json.writeObjectPropertyStart("identity");
        json.writeStringProperty("subject", identity.subject());
        json.writeArrayPropertyStart("scopes");
        String[] scopes = identity.scopes().toArray(new String[0]);
        Arrays.sort(scopes);
        for (String scope : scopes) {
          json.writeString(scope);
        }
        json.writeEndArray();
        json.writeEndObject();
      }
      if (r.deadlineMillis().isPresent()) {
        json.writeNumberProperty("deadlineMs", r.deadlineMillis().getAsLong());
      }
      if (r.demand().isPresent()) {
        json.writeNumberProperty("demand", r.demand().getAsLong());
      }
      if (!r.meta().isEmpty()) {
        json.writeObjectPropertyStart("meta");
        for (Map.Entry<String, String> entry : r.meta().asMap().entrySet()) {
          json.writeStringProperty(entry.getKey(), entry.getValue());
        }
        json.writeEndObject();
      }
      json.writeName("input");
      writeTree(r.input(), json, mapper);
    } else if (event instanceof CallEvent.Responded responded) {
      json.writeName("output");
      if (output != null) {
        writeTree(output, json, mapper);
      } else {
        writePlainLocal(responded.output(), json, mapper);
      }
    } else if (event instanceof CallEvent.Failed f) {
      json.writeObjectPropertyStart("error");
      json.writeStringProperty("code", f.code().name());
      json.writeStringProperty("message", f.message());
      json.writeBooleanProperty("retryable", f.retryable());
      if (f.details().isPresent()) {
        json.writeName("details");
        writeTree(f.details().get(), json, mapper);
      }
      json.writeEndObject();
    } else if (event instanceof CallEvent.Aborted a) {
      if (a.reason().isPresent()) {
        json.writeStringProperty("reason", a.reason().get());
      }
    } else if (event instanceof CallEvent.Demand d) {
      json.writeNumberProperty("n", d.n());
    }
    json.writeEndObject();
  }

  /**
   * Whether {@code envelope} is the common local result: JSON data and a local meta, which {@link
   * #writePlainLocal} writes without building the envelope's tree first.
   */
  private static boolean isPlainLocal(ResponseEnvelope<?> envelope) {
    return envelope.data() instanceof JsonNode && envelope.meta() instanceof LocalResponseMeta;
  }

  /** What {@code Envelopes.toJson} builds for a {@link #isPlainLocal} envelope, field for field. */
  private static void writePlainLocal(
      ResponseEnvelope<?> envelope, JsonGenerator json, boolean mapper) {
    LocalResponseMeta meta = (LocalResponseMeta) envelope.meta();
    json.writeStartObject();
    json.writeName("data");
    writeTree((JsonNode) envelope.data(), json, mapper);
    json.writeObjectPropertyStart("meta");
    json.writeStringProperty("source", meta.source().wireName());
    json.writeStringProperty("operationId", meta.operationId());
    json.writeNumberProperty("timestamp", meta.timestamp());
    json.writeEndObject();
    json.writeEndObject();
  }

  /**
   * Writes a tree as the mapper does. With {@code mapper} false (a generator without the mapper's
   * context, which costs a context per event) only the node types a parser makes are written, node
   * for node as the mapper writes them; any other (binary, POJO, a BigDecimal, a float) throws
   * {@link NotPlain}, and {@link #encode} writes the event again with the mapper's generator.
   */
  private static void writeTree(JsonNode node, JsonGenerator json, boolean mapper) {
    if (mapper) {
      json.writeTree(node);
    } else if (node instanceof ObjectNode object) {
      json.writeStartObject();
      for (Map.Entry<String, JsonNode> property : object.properties()) {
        json.writeName(property.getKey());
        writeTree(property.getValue(), json, false);
      }
      json.writeEndObject();
    } else if (node instanceof ArrayNode array) {
      json.writeStartArray();
      for (JsonNode item : array.values()) {
        writeTree(item, json, false);
      }
      json.writeEndArray();
    } else if (node instanceof StringNode) {
      json.writeString(node.stringValue());
    } else if (node instanceof IntNode) {
      json.writeNumber(node.intValue());
    } else if (node instanceof LongNode) {
      json.writeNumber(node.longValue());
    } else if (node instanceof DoubleNode) {
      json.writeNumber(node.doubleValue());
    } else if (node instanceof BigIntegerNode) {
      json.writeNumber(node.bigIntegerValue());
    } else if (node instanceof BooleanNode) {
      json.writeBoolean(node.booleanValue());
    } else if (node instanceof NullNode) {
      json.writeNull();
    } else {
      throw NotPlain.INSTANCE;
    }
  }

  /**
   * The bytes a serving side sends for {@code event}: its encoding, or, when that is larger than
   * {@code maxBytes} or cannot be written, a {@code call.error} that says so (RESOURCE_EXHAUSTED),
   * cut down until it fits. Never throws for an event that cannot be sent, so the caller always
   * hears something.
   */
  static Reply encodeReply(CallEvent.CallScoped event, int maxBytes) {
    CallError problem;
    try {
      byte[] bytes = encode(event);
      if (bytes.length <= maxBytes) {
        return new Reply(bytes, Optional.empty());
      }
      problem =
          event instanceof CallEvent.Failed failed
              ? CallError.builder(failed.code(), Json.cut(failed.message(), 1024))
                  .retryable(failed.retryable())
                  .build()
              : CallError.builder(
                      ErrorCode.RESOURCE_EXHAUSTED,
                      "The "
                          + (event instanceof CallEvent.Responded ? "response" : event.type())
                          + " is "
                          + bytes.length
                          + " bytes, more than the transport carries ("
                          + maxBytes
                          + ")")
                  .retryable(false) // the same result is as large next time
                  .build();
    } catch (CallError e) {
      problem = e;
    }
    // The replacement has no details and a bounded message; it fits any sane transport.
    byte[] bytes =
        encode(
            new CallEvent.Failed(
                event.requestId(),
                problem.code(),
                Json.cut(problem.getMessage(), 1024),
                problem.retryable(),
                Optional.empty()));
    return new Reply(bytes, Optional.of(problem));
  }

  /**
   * What {@link #encodeReply} produced.
   *
   * @param bytes what to publish
   * @param replaced the error sent instead of the event, when it could not be sent as it was
   */
  record Reply(byte[] bytes, Optional<CallError> replaced) {}
}
