package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.LocalResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.internal.ThreadRecyclers;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.TokenStreamFactory;
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
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * Reads and writes {@link CallEvent}s as the protocol's JSON (UTF-8). Reading checks every field; a
 * message that is not a valid event raises a {@link CallError} with code PROTOCOL_ERROR whose
 * {@code details} carry the {@code requestId} and {@code replyTo} when they could be read, so the
 * receiver can answer the sender instead of dropping the message. docs/protocol.md is the
 * specification; {@link #eventSchema()} is its JSON Schema.
 */
public final class CallEvents {
  /** The protocol version this library writes and reads. */
  public static final int PROTOCOL_VERSION = 1;

  /** The default cap on one message: 1 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

  /**
   * The deepest an event may nest, counting the event object itself ({@code {"input": {}}} is 2
   * deep). Both reading and writing enforce it, so what one side writes the other can read.
   */
  public static final int MAX_NESTING_DEPTH = 256;

  /** The most characters of an identity's subject (Unicode code points). */
  public static final int MAX_SUBJECT_LENGTH = 256;

  /** The most scopes an identity may carry. */
  public static final int MAX_SCOPES = 1024;

  /**
   * How much of a message too large to read is scanned for its {@code requestId} and {@code
   * replyTo}, so that the sender can still be told. Writers put those fields first.
   */
  static final int SALVAGE_BYTES = 4096;

  /** The most schema errors an INVALID_INPUT carries in {@code details.errors}. */
  static final int MAX_WIRE_SCHEMA_ERRORS = 100;

  private static final String SCHEMA_RESOURCE =
      "/dev/alkdev/operations/protocol/call-events.schema.json";

  // Sizes are checked before parsing; duplicate names are refused because JSON parsers disagree on
  // which one wins, and a relay must not read another requestId than the receiver.
  // Buffers recycled per thread (ThreadRecyclers): every call reads and writes events.
  private static final JsonMapper READER =
      JsonMapper.builder(
              Json.boundedMapper(MAX_NESTING_DEPTH, Integer.MAX_VALUE)
                  .tokenStreamFactory()
                  .rebuild()
                  .recyclerPool(ThreadRecyclers.POOL)
                  .build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private static final JsonMapper WRITER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .recyclerPool(ThreadRecyclers.POOL)
                  .streamWriteConstraints(
                      StreamWriteConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
                  .build())
          .build();

  private CallEvents() {}

  /**
   * The JSON Schema (draft 2020-12) of every event, with a {@code $defs} entry per event type
   * ({@code CallRequested}, {@code CallResponded}, {@code CallError}, {@code CallCompleted}, {@code
   * CallAborted}, {@code CallDemand}, {@code CallAlive}) joined by {@code oneOf} on {@code type},
   * and the response envelope's definitions for {@code call.responded.output}. Everything {@link
   * #encode} writes validates; it accepts what {@link #decode} accepts, except what a schema cannot
   * say (duplicate names, sizes in bytes, nesting). Compiled once, on first use.
   */
  public static Schema eventSchema() {
    return SchemaHolder.SCHEMA;
  }

  // ------------------------------------------------------------------ writing

  /**
   * The event as its JSON object. The fields a receiver needs to answer ({@code v}, {@code type},
   * {@code requestId}, {@code replyTo}) come first and the payload last, so that a receiver can
   * still read them from a message it cannot read whole (too large, too deep).
   */
  public static ObjectNode toJson(CallEvent event) {
    Objects.requireNonNull(event, "event");
    ObjectNode json = Json.nodes().objectNode();
    json.put("v", PROTOCOL_VERSION);
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
  public static byte[] encode(CallEvent event) {
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
                  + MAX_NESTING_DEPTH
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
    json.writeNumberProperty("v", PROTOCOL_VERSION);
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

  /**
   * The error object every surface writes for a failed call, the {@code error} of a {@code
   * call.error} event: {@code {code, message, retryable, details}}, an INVALID_INPUT's schema
   * errors under {@code details.errors} as {@code {instancePath, keyword, message}}. The HTTP
   * gateway's error body, the MCP server's {@code _meta} and {@code ops --json} are this object.
   */
  public static ObjectNode errorJson(CallError error) {
    return (ObjectNode) toJson(failed("-", error)).get("error");
  }

  /**
   * The {@code call.error} event for a failure: code, message, retryable and details, nothing else
   * (no cause, no stack trace). An INVALID_INPUT without details of its own carries its schema
   * errors as {@code details.errors} (the first {@value #MAX_WIRE_SCHEMA_ERRORS}).
   */
  public static CallEvent.Failed failed(String requestId, CallError error) {
    Optional<JsonNode> details = error.details();
    if (details.isEmpty() && !error.validationErrors().isEmpty()) {
      ObjectNode json = Json.nodes().objectNode();
      ArrayNode errors = json.putArray("errors");
      for (SchemaError schemaError : error.validationErrors()) {
        if (errors.size() == MAX_WIRE_SCHEMA_ERRORS) {
          json.put("truncated", true);
          break;
        }
        errors
            .addObject()
            .put("instancePath", schemaError.instancePath())
            .put("keyword", schemaError.keyword())
            .put("message", schemaError.message());
      }
      details = Optional.of(json);
    }
    return new CallEvent.Failed(
        requestId, error.code(), error.getMessage(), error.retryable(), details);
  }

  /**
   * The {@link CallError} a caller raises for a {@code call.error} event. The schema errors in the
   * details of an INVALID_INPUT become its {@link CallError#validationErrors()} again.
   */
  public static CallError toCallError(CallEvent.Failed failed) {
    CallError.Builder builder =
        CallError.builder(failed.code(), failed.message()).retryable(failed.retryable());
    failed.details().ifPresent(builder::details);
    if (failed.code() == ErrorCode.INVALID_INPUT) {
      failed.details().map(CallEvents::schemaErrors).ifPresent(builder::validationErrors);
    }
    return builder.build();
  }

  private static List<SchemaError> schemaErrors(JsonNode details) {
    JsonNode errors = details.get("errors");
    List<SchemaError> list = new ArrayList<>();
    if (errors == null || !errors.isArray()) {
      return list;
    }
    for (JsonNode error : errors) {
      JsonNode path = error.get("instancePath");
      JsonNode keyword = error.get("keyword");
      JsonNode message = error.get("message");
      if (path != null && path.isString() && message != null && message.isString()) {
        list.add(
            new SchemaError(
                path.asString(),
                keyword != null && keyword.isString() ? keyword.asString() : "",
                message.asString()));
      }
    }
    return list;
  }

  // ------------------------------------------------------------------ reading

  /**
   * Reads one event from UTF-8 JSON bytes.
   *
   * @throws CallError PROTOCOL_ERROR if the bytes are not a valid event (too large, not UTF-8, not
   *     JSON, nested deeper than {@link #MAX_NESTING_DEPTH}, a duplicate name, a missing or wrong
   *     field, an unknown type or another protocol version); its details hold the {@code requestId}
   *     and {@code replyTo} when they could be read, and a JSON {@code pointer} to the wrong field
   *     when there is one
   */
  public static CallEvent decode(byte[] bytes, int maxMessageBytes) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.length > maxMessageBytes) {
      throw malformed(
          "message is " + bytes.length + " bytes, more than the limit of " + maxMessageBytes,
          null,
          salvage(bytes, Math.min(bytes.length, SALVAGE_BYTES)));
    }
    if (bytes.length >= 2 && (bytes[0] == 0 || bytes[1] == 0 || (bytes[0] & 0xFE) == 0xFE)) {
      // JSON text starts with an ASCII character, which UTF-16 and UTF-32 pad with zero bytes, or
      // with their byte order marks (FE FF, FF FE). Jackson would guess those encodings; the
      // protocol is UTF-8 only.
      throw malformed("message is not UTF-8 (it looks like UTF-16 or UTF-32)", null, null);
    }
    try {
      CallEvent event = decodeStreaming(bytes);
      if (event != null) {
        return event;
      }
    } catch (RuntimeException e) {
      // Not a valid event: the tree reader below finds the same problem and says what it is.
    }
    return decodeTree(bytes);
  }

  /**
   * The reference reader: the whole message as a tree, then {@link #fromJson}. It gives every
   * PROTOCOL_ERROR its message, pointer and salvaged fields; {@link #decodeStreaming} hands it
   * every message that is not a plain valid event.
   */
  static CallEvent decodeTree(byte[] bytes) {
    JsonNode json;
    try {
      json = READER.readTree(bytes);
    } catch (JacksonException e) {
      throw malformed(
          "message is not valid JSON: " + firstLine(e.getOriginalMessage()),
          null,
          salvage(bytes, bytes.length));
    }
    return fromJson(json);
  }

  /**
   * The fast reader: the top-level fields straight from the parser, the payloads ({@code input},
   * {@code output}, {@code error}, {@code identity}, {@code meta}) as trees, then the same checks
   * as {@link #fromJson}. It returns null, or throws, for anything that is not a plain valid event
   * (a null or wrongly typed field, a number written as 1.0, any check that fails, any damage), and
   * the caller then reads the message with {@link #decodeTree}, so errors and their details are
   * exactly the tree reader's. The parser keeps the same limits (nesting); duplicate names are
   * checked here.
   */
  static CallEvent decodeStreaming(byte[] bytes) {
    String type = null;
    String requestId = null;
    String replyTo = null;
    String operationId = null;
    String parent = null;
    String reason = null;
    String inbox = null;
    long version = -1;
    long deadline = -1;
    long demand = -1;
    long n = -1;
    JsonNode input = null;
    JsonNode output = null;
    JsonNode error = null;
    Optional<Identity> identity = Optional.empty();
    JsonNode meta = null;
    try (JsonParser parser = READER.tokenStreamFactory().createParser(STREAMING, bytes)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      // Duplicate names are caught here (the parser's own check makes a hash set per object):
      // one bit per known field, a list for the others, which no plain event has.
      int seen = 0;
      List<String> others = null;
      while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = parser.currentName();
        JsonToken token = parser.nextToken();
        switch (name) {
          case "v" -> {
            seen = once(seen, 0);
            version = streamedLong(parser, token);
          }
          case "type" -> {
            seen = once(seen, 1);
            type = streamedString(parser, token);
          }
          case "requestId" -> {
            seen = once(seen, 2);
            requestId = streamedString(parser, token);
          }
          case "replyTo" -> {
            seen = once(seen, 3);
            replyTo = streamedString(parser, token);
          }
          case "operationId" -> {
            seen = once(seen, 4);
            operationId = streamedString(parser, token);
          }
          case "parentRequestId" -> {
            seen = once(seen, 5);
            parent = streamedString(parser, token);
          }
          case "reason" -> {
            seen = once(seen, 6);
            reason = streamedString(parser, token);
          }
          case "inbox" -> {
            seen = once(seen, 7);
            inbox = streamedString(parser, token);
          }
          case "deadlineMs" -> {
            seen = once(seen, 8);
            deadline = streamedLong(parser, token);
          }
          case "demand" -> {
            seen = once(seen, 9);
            demand = streamedLong(parser, token);
          }
          case "n" -> {
            seen = once(seen, 10);
            n = streamedLong(parser, token);
          }
          case "input" -> {
            seen = once(seen, 11);
            input = streamedTree(parser, token);
          }
          case "output" -> {
            seen = once(seen, 12);
            output = streamedTree(parser, token);
          }
          case "error" -> {
            seen = once(seen, 13);
            error = streamedTree(parser, token);
          }
          case "identity" -> {
            seen = once(seen, 14);
            identity = streamedIdentity(parser, token);
          }
          case "meta" -> {
            seen = once(seen, 15);
            meta = streamedTree(parser, token);
          }
          default -> {
            if (others == null) {
              others = new ArrayList<>();
            } else if (others.contains(name)) {
              throw NotPlain.INSTANCE;
            }
            others.add(name);
            streamedTree(parser, token); // read to check it as the tree reader would, then dropped
          }
        }
      }
      if (parser.nextToken() != null) {
        return null; // trailing data
      }
    }
    if (version != PROTOCOL_VERSION || type == null) {
      return null;
    }
    if (type.equals("call.alive")) {
      return inbox != null && ProtocolTopics.isInbox(inbox) ? new CallEvent.Alive(inbox) : null;
    }
    if (requestId == null) {
      return null;
    }
    // The request id, reply topic and parent are checked by the events' constructors, whose
    // IllegalArgumentException sends the message to the tree reader as a null here would: checked
    // here too, they were checked twice per event.
    switch (type) {
      case "call.requested":
        if (operationId == null || demand == 0) {
          return null;
        }
        return new CallEvent.Requested(
            requestId,
            operationId,
            input == null ? Json.nodes().nullNode() : input,
            Optional.ofNullable(parent),
            identity,
            deadline == -1 ? OptionalLong.empty() : OptionalLong.of(deadline),
            Optional.ofNullable(replyTo),
            demand == -1 ? OptionalLong.empty() : OptionalLong.of(demand),
            meta(meta, null));
      case "call.responded":
        return output == null
            ? null
            : new CallEvent.Responded(requestId, Envelopes.fromJson(output));
      case "call.error":
        return failed(error, null, requestId);
      case "call.completed":
        return new CallEvent.Completed(requestId);
      case "call.aborted":
        return new CallEvent.Aborted(requestId, Optional.ofNullable(reason));
      case "call.demand":
        return n > 0 ? new CallEvent.Demand(requestId, n) : null;
      default:
        return null;
    }
  }

  /** {@code seen} with field {@code bit} marked; a field seen before is a duplicate name. */
  private static int once(int seen, int bit) {
    if ((seen & (1 << bit)) != 0) {
      throw NotPlain.INSTANCE;
    }
    return seen | (1 << bit);
  }

  /**
   * The identity straight from the parser, without a tree: a subject and a list of scopes, checked
   * as {@link #identity(JsonNode, JsonNode)} checks them; anything else (another field, a wrong
   * type, a value it refuses) goes to the tree reader. An identity is in every request, and its
   * tree and the set copied from it were a fifth of what decoding a request allocated.
   */
  private static Optional<Identity> streamedIdentity(JsonParser parser, JsonToken token) {
    if (token == JsonToken.VALUE_NULL) {
      return Optional.empty();
    }
    if (token != JsonToken.START_OBJECT) {
      throw NotPlain.INSTANCE;
    }
    String subject = null;
    String[] scopes = NO_SCOPES;
    int count = 0;
    boolean scopesSeen = false;
    while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
      String name = parser.currentName();
      JsonToken value = parser.nextToken();
      if (name.equals("subject") && subject == null) {
        subject = streamedString(parser, value);
      } else if (name.equals("scopes") && !scopesSeen) {
        scopesSeen = true;
        if (value == JsonToken.VALUE_NULL) {
          continue;
        }
        if (value != JsonToken.START_ARRAY) {
          throw NotPlain.INSTANCE;
        }
        JsonToken item;
        while ((item = parser.nextToken()) != JsonToken.END_ARRAY) {
          String scope = streamedString(parser, item);
          if (scope.isBlank() || count == MAX_SCOPES) {
            throw NotPlain.INSTANCE;
          }
          if (count == scopes.length) {
            scopes = Arrays.copyOf(scopes, Math.max(4, count * 2));
          }
          scopes[count++] = scope;
        }
      } else {
        throw NotPlain.INSTANCE; // another field, or one seen twice
      }
    }
    if (subject == null
        || subject.isBlank()
        || subject.codePointCount(0, subject.length()) > MAX_SUBJECT_LENGTH) {
      throw NotPlain.INSTANCE;
    }
    return Optional.of(new Identity(subject, scopeSet(scopes, count)));
  }

  private static final String[] NO_SCOPES = new String[0];

  /** The first {@code count} scopes as an immutable set (which Identity keeps without a copy). */
  private static Set<String> scopeSet(String[] scopes, int count) {
    switch (count) {
      case 0:
        return Set.of();
      case 1:
        return Set.of(scopes[0]);
      default:
        try {
          return Set.of(Arrays.copyOf(scopes, count));
        } catch (IllegalArgumentException duplicate) {
          // A scope listed twice counts once, as in the tree reader.
          return new LinkedHashSet<>(Arrays.asList(scopes).subList(0, count));
        }
    }
  }

  /** A string field's value. */
  private static String streamedString(JsonParser parser, JsonToken token) {
    if (token != JsonToken.VALUE_STRING) {
      throw NotPlain.INSTANCE; // null, or the wrong type: the tree reader decides
    }
    return parser.getString();
  }

  /** A non-negative integer field's value that fits a long, written without a fraction. */
  private static long streamedLong(JsonParser parser, JsonToken token) {
    if (token != JsonToken.VALUE_NUMBER_INT) {
      throw NotPlain.INSTANCE;
    }
    JsonParser.NumberType kind = parser.getNumberType();
    if (kind != JsonParser.NumberType.INT && kind != JsonParser.NumberType.LONG) {
      throw NotPlain.INSTANCE;
    }
    long value = parser.getLongValue();
    if (value < 0) {
      throw NotPlain.INSTANCE;
    }
    return value;
  }

  /**
   * Thrown by {@link #decodeStreaming} for a message it leaves to the tree reader; shared and
   * without a stack trace, since it never leaves this class.
   */
  private static final class NotPlain extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final NotPlain INSTANCE = new NotPlain();

    private NotPlain() {
      super("not a plain event", null, false, false);
    }
  }

  /**
   * The value as a tree, node for node what the mapper's tree reader builds (ints, longs and big
   * integers by size, other numbers as doubles), without the mapper: asking it for a tree per field
   * cost more than reading the whole message as one. Its depth is bounded by the parser's.
   */
  private static JsonNode streamedTree(JsonParser parser, JsonToken token) {
    JsonNodeFactory nodes = Json.nodes();
    switch (token) {
      case START_OBJECT:
        {
          ObjectNode object = nodes.objectNode();
          while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            if (object.replace(name, streamedTree(parser, parser.nextToken())) != null) {
              throw NotPlain.INSTANCE; // a duplicate name: the tree reader refuses it
            }
          }
          return object;
        }
      case START_ARRAY:
        {
          ArrayNode array = nodes.arrayNode();
          JsonToken item;
          while ((item = parser.nextToken()) != JsonToken.END_ARRAY) {
            array.add(streamedTree(parser, item));
          }
          return array;
        }
      case VALUE_STRING:
        return nodes.stringNode(parser.getString());
      case VALUE_NUMBER_INT:
        return switch (parser.getNumberType()) {
          case INT -> nodes.numberNode(parser.getIntValue());
          case LONG -> nodes.numberNode(parser.getLongValue());
          default -> nodes.numberNode(parser.getBigIntegerValue());
        };
      case VALUE_NUMBER_FLOAT:
        return nodes.numberNode(parser.getDoubleValue());
      case VALUE_TRUE:
        return nodes.booleanNode(true);
      case VALUE_FALSE:
        return nodes.booleanNode(false);
      case VALUE_NULL:
        return nodes.nullNode();
      default:
        throw NotPlain.INSTANCE; // an embedded object: not JSON text
    }
  }

  /**
   * What the streaming parser needs of a mapper's context: the reader's features and constraints
   * (nesting), and nothing of databind, which it does not use. Duplicate names are the one feature
   * left out: {@link #decodeStreaming} finds them itself, without a hash set per object.
   */
  private static final ObjectReadContext STREAMING =
      new ObjectReadContext.Base() {
        private final int features =
            READER.deserializationConfig().getStreamReadFeatures()
                & ~StreamReadFeature.STRICT_DUPLICATE_DETECTION.getMask();

        @Override
        public int getStreamReadFeatures(int defaults) {
          return features;
        }

        @Override
        public StreamReadConstraints streamReadConstraints() {
          return READER.tokenStreamFactory().streamReadConstraints();
        }

        @Override
        public TokenStreamFactory tokenStreamFactory() {
          return READER.tokenStreamFactory();
        }
      };

  /** Reads one event from its JSON object. */
  public static CallEvent fromJson(JsonNode json) {
    if (json == null || json.isMissingNode()) {
      throw malformed("message is empty", null, null);
    }
    if (!json.isObject()) {
      throw malformed("an event must be a JSON object, was " + Json.describe(json), "", null);
    }
    JsonNode v = json.get("v");
    if (v == null || v.isNull()) {
      throw malformed("\"v\" (the protocol version) is missing", "/v", json);
    }
    if (!v.isNumber() || !(v.isIntegralNumber() || v.canConvertToExactIntegral())) {
      throw malformed(
          "\"v\" (the protocol version) must be an integer, was " + Json.describe(v), "/v", json);
    }
    OptionalLong version = exactLong(v);
    if (version.isEmpty() || version.getAsLong() != PROTOCOL_VERSION) {
      CallError error =
          malformed(
              "protocol version "
                  + Json.cut(v.toString(), 40)
                  + " is not supported (this side speaks "
                  + PROTOCOL_VERSION
                  + ")",
              "/v",
              json);
      ((ObjectNode) error.details().orElseThrow())
          .putArray("supportedVersions")
          .add(PROTOCOL_VERSION);
      throw error;
    }
    JsonNode typeNode = json.get("type");
    if (typeNode != null && typeNode.isString() && typeNode.asString().equals("call.alive")) {
      return alive(json); // the one event that belongs to no call, so has no requestId
    }
    String requestId = requestId(json);
    String type = string(json, "type", json);
    switch (type) {
      case "call.requested":
        return requested(json, requestId);
      case "call.responded":
        return responded(json, requestId);
      case "call.error":
        return failed(json.get("error"), json, requestId);
      case "call.completed":
        return new CallEvent.Completed(requestId);
      case "call.aborted":
        return new CallEvent.Aborted(requestId, optionalString(json, "reason", json));
      case "call.demand":
        {
          JsonNode n = json.get("n");
          OptionalLong value = n == null ? OptionalLong.empty() : exactLong(n);
          if (value.isEmpty() || value.getAsLong() <= 0) {
            throw malformed(
                "\"n\" must be an integer from 1 to 2^63-1, was " + Json.describe(n), "/n", json);
          }
          return new CallEvent.Demand(requestId, value.getAsLong());
        }
      default:
        throw malformed(
            "unknown event type "
                + Json.quote(type)
                + " (version "
                + PROTOCOL_VERSION
                + " has call.requested, call.responded, call.error, call.completed, call.aborted,"
                + " call.demand, call.alive)",
            "/type",
            json);
    }
  }

  private static CallEvent.Alive alive(JsonNode json) {
    String inbox = string(json, "inbox", json);
    if (!ProtocolTopics.isInbox(inbox)) {
      throw malformed(
          "\"inbox\" must be ops.inbox. followed by 1 to 128 letters, digits, '_', '.', ':' or"
              + " '-', was "
              + Json.quote(inbox),
          "/inbox",
          json);
    }
    return new CallEvent.Alive(inbox);
  }

  private static CallEvent.Requested requested(JsonNode json, String requestId) {
    Optional<String> replyTo = optionalString(json, "replyTo", json);
    if (replyTo.isPresent() && !isValidTopic(replyTo.get())) {
      throw malformed(
          "\"replyTo\" must be 1 to 256 letters, digits, '_', '.', ':', '/', '@' or '-' (no"
              + " spaces or wildcards), was "
              + Json.quote(replyTo.get()),
          "/replyTo",
          json);
    }
    String operationId = string(json, "operationId", json);
    Optional<String> parent = optionalString(json, "parentRequestId", json);
    if (parent.isPresent() && !isValidRequestId(parent.get())) {
      throw malformed(
          "\"parentRequestId\" must be a request id (1 to 128 letters, digits, '_', '.', ':' or"
              + " '-'), was "
              + Json.quote(parent.get()),
          "/parentRequestId",
          json);
    }
    JsonNode input = json.get("input");
    Optional<Identity> identity = identity(json.get("identity"), json);
    OptionalLong deadline = integer(json, "deadlineMs", 0);
    OptionalLong demand = integer(json, "demand", 1);
    CallMetadata meta = meta(json.get("meta"), json);
    try {
      // The constructor checks the operation id; every other field is checked above.
      return new CallEvent.Requested(
          requestId,
          operationId,
          input == null ? Json.nodes().nullNode() : input,
          parent,
          identity,
          deadline,
          replyTo,
          demand,
          meta);
    } catch (IllegalArgumentException e) {
      if (!OperationSpec.isValidId(operationId)) {
        throw malformed(
            "\"operationId\" must be namespace.name (letters, digits, '_' and '-'; a namespace of"
                + " up to 64 and a name of up to 128 characters), was "
                + Json.quote(operationId),
            "/operationId",
            json);
      }
      throw malformed(e.getMessage(), null, json);
    }
  }

  /**
   * The {@code meta} of a request: an object of at most {@link CallMetadata#MAX_ENTRIES} string
   * values, within {@link CallMetadata}'s limits on keys, values and total size.
   */
  private static CallMetadata meta(JsonNode meta, JsonNode json) {
    if (meta == null || meta.isNull()) {
      return CallMetadata.empty();
    }
    if (!meta.isObject()) {
      throw malformed(
          "\"meta\" must be an object of string values, was " + Json.describe(meta), "/meta", json);
    }
    if (meta.size() > CallMetadata.MAX_ENTRIES) {
      throw malformed(
          "\"meta\" may hold at most " + CallMetadata.MAX_ENTRIES + " entries, has " + meta.size(),
          "/meta",
          json);
    }
    Map<String, String> entries = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : meta.properties()) {
      String key = entry.getKey();
      Optional<String> keyProblem = CallMetadata.keyProblem(key);
      if (keyProblem.isPresent()) {
        throw malformed("\"meta\": " + keyProblem.get(), "/meta", json);
      }
      String pointer = "/meta/" + key; // a valid key has no '/' or '~' to escape
      JsonNode value = entry.getValue();
      if (!value.isString()) {
        throw malformed(
            "\"meta." + key + "\" must be a string, was " + Json.describe(value), pointer, json);
      }
      Optional<String> valueProblem = CallMetadata.valueProblem(key, value.asString());
      if (valueProblem.isPresent()) {
        throw malformed("\"meta\": " + valueProblem.get(), pointer, json);
      }
      entries.put(key, value.asString());
    }
    try {
      return CallMetadata.of(entries);
    } catch (IllegalArgumentException e) {
      throw malformed("\"meta\": " + e.getMessage(), "/meta", json); // the total size
    }
  }

  private static CallEvent.Responded responded(JsonNode json, String requestId) {
    JsonNode output = json.get("output");
    if (output == null) {
      throw malformed("\"output\" (the response envelope) is missing", "/output", json);
    }
    try {
      return new CallEvent.Responded(requestId, Envelopes.fromJson(output));
    } catch (CallError e) {
      String pointer =
          e.details()
              .map(d -> d.get("pointer"))
              .filter(JsonNode::isString)
              .map(JsonNode::asString)
              .orElse("");
      throw malformed(
          "\"output\" is not a response envelope: " + e.getMessage(), "/output" + pointer, json);
    }
  }

  private static Optional<Identity> identity(JsonNode who, JsonNode json) {
    if (who == null || who.isNull()) {
      return Optional.empty();
    }
    if (!who.isObject()) {
      throw malformed(
          "\"identity\" must be an object with subject and scopes, was " + Json.describe(who),
          "/identity",
          json);
    }
    JsonNode subjectNode = who.get("subject");
    if (subjectNode == null || !subjectNode.isString()) {
      throw malformed("\"identity.subject\" is missing or not a string", "/identity/subject", json);
    }
    String subject = subjectNode.asString();
    if (subject.isBlank() || subject.codePointCount(0, subject.length()) > MAX_SUBJECT_LENGTH) {
      throw malformed(
          "\"identity.subject\" must be 1 to "
              + MAX_SUBJECT_LENGTH
              + " characters, not all whitespace",
          "/identity/subject",
          json);
    }
    Set<String> scopes = new LinkedHashSet<>();
    JsonNode list = who.get("scopes");
    if (list != null && !list.isNull()) {
      if (!list.isArray() || list.size() > MAX_SCOPES) {
        throw malformed(
            "\"identity.scopes\" must be an array of at most " + MAX_SCOPES + " strings",
            "/identity/scopes",
            json);
      }
      for (int i = 0; i < list.size(); i++) {
        JsonNode scope = list.get(i);
        if (!scope.isString() || scope.asString().isBlank()) {
          throw malformed(
              "\"identity.scopes\" must hold strings that are not blank; item "
                  + i
                  + " is "
                  + Json.describe(scope),
              "/identity/scopes/" + i,
              json);
        }
        scopes.add(scope.asString());
      }
    }
    return Optional.of(new Identity(subject, scopes));
  }

  private static CallEvent.Failed failed(JsonNode error, JsonNode json, String requestId) {
    if (error == null || !error.isObject()) {
      throw malformed(
          "\"error\" must be an object with code and message, was " + Json.describe(error),
          "/error",
          json);
    }
    JsonNode codeNode = error.get("code");
    if (codeNode == null || !codeNode.isString()) {
      throw malformed("\"error.code\" is missing or not a string", "/error/code", json);
    }
    ErrorCode code;
    try {
      code = ErrorCode.valueOf(codeNode.asString().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      // A newer peer's code: keep the message, fail as a generic execution error.
      code = ErrorCode.EXECUTION_ERROR;
    }
    JsonNode message = error.get("message");
    if (message == null || !message.isString()) {
      throw malformed("\"error.message\" is missing or not a string", "/error/message", json);
    }
    JsonNode retryable = error.get("retryable");
    if (retryable != null && !retryable.isBoolean() && !retryable.isNull()) {
      throw malformed(
          "\"error.retryable\" must be a boolean, was " + Json.describe(retryable),
          "/error/retryable",
          json);
    }
    JsonNode details = error.get("details");
    return new CallEvent.Failed(
        requestId,
        code,
        message.asString(),
        retryable == null || retryable.isNull() ? code.retryableByDefault() : retryable.asBoolean(),
        details == null || details.isNull() ? Optional.empty() : Optional.of(details));
  }

  private static String requestId(JsonNode json) {
    JsonNode value = json.get("requestId");
    if (value == null || !value.isString()) {
      throw malformed(
          "\"requestId\" is missing or not a string, was " + Json.describe(value),
          "/requestId",
          null);
    }
    if (!isValidRequestId(value.asString())) {
      throw malformed(
          "\"requestId\" must be 1 to 128 letters, digits, '_', '.', ':' or '-', was "
              + Json.quote(value.asString()),
          "/requestId",
          null);
    }
    return value.asString();
  }

  private static String string(JsonNode json, String field, JsonNode event) {
    JsonNode value = json.get(field);
    if (value == null || !value.isString()) {
      throw malformed(
          "\"" + field + "\" is missing or not a string, was " + Json.describe(value),
          "/" + field,
          event);
    }
    return value.asString();
  }

  private static Optional<String> optionalString(JsonNode json, String field, JsonNode event) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isString()) {
      throw malformed(
          "\"" + field + "\" must be a string, was " + Json.describe(value), "/" + field, event);
    }
    return Optional.of(value.asString());
  }

  /** An optional integer field of at least {@code min}; null counts as absent. */
  private static OptionalLong integer(JsonNode json, String field, long min) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return OptionalLong.empty();
    }
    OptionalLong number = exactLong(value);
    if (number.isEmpty() || number.getAsLong() < min) {
      throw malformed(
          "\""
              + field
              + "\" must be an integer from "
              + min
              + " to 2^63-1, was "
              + Json.describe(value),
          "/" + field,
          json);
    }
    return number;
  }

  /**
   * The value of a JSON number that is an integer fitting a long, as JSON Schema counts integers
   * ({@code 1.0} is one); empty for anything else. Never throws, however large the number.
   */
  private static OptionalLong exactLong(JsonNode value) {
    if (!value.isNumber()) {
      return OptionalLong.empty();
    }
    if (value.isIntegralNumber()) {
      return value.canConvertToLong() ? OptionalLong.of(value.longValue()) : OptionalLong.empty();
    }
    return value.canConvertToExactIntegral() && value.canConvertToLong()
        ? OptionalLong.of(value.asLong())
        : OptionalLong.empty();
  }

  /**
   * The top-level {@code requestId} and {@code replyTo} of a message that cannot be read whole, as
   * far as the first {@code length} bytes are readable JSON: enough to answer the sender when it
   * wrote them before the damage (this library's writers put them first).
   */
  private static JsonNode salvage(byte[] bytes, int length) {
    ObjectNode found = Json.nodes().objectNode();
    try (JsonParser parser = READER.createParser(bytes, 0, length)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return found;
      }
      while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (value == JsonToken.VALUE_STRING
            && (name.equals("requestId") || name.equals("replyTo"))
            && !found.has(name)) {
          found.put(name, parser.getString());
          if (found.size() == 2) {
            break;
          }
        } else {
          parser.skipChildren();
        }
      }
    } catch (JacksonException e) {
      // The damage (or the end of the scanned bytes) is reached: keep what was found before it.
    }
    return found;
  }

  /**
   * A PROTOCOL_ERROR. Its details hold the request id and reply topic when {@code event} has valid
   * ones, so a receiver can tell the sender, and the JSON Pointer of the wrong field.
   */
  private static CallError malformed(String reason, String pointer, JsonNode event) {
    ObjectNode details = Json.nodes().objectNode();
    if (event != null) {
      JsonNode requestId = event.get("requestId");
      if (requestId != null && requestId.isString() && isValidRequestId(requestId.asString())) {
        details.put("requestId", requestId.asString());
      }
      JsonNode replyTo = event.get("replyTo");
      if (replyTo != null && replyTo.isString() && isValidTopic(replyTo.asString())) {
        details.put("replyTo", replyTo.asString());
      }
    }
    if (pointer != null) {
      details.put("pointer", pointer);
    }
    return CallError.builder(ErrorCode.PROTOCOL_ERROR, "Malformed call event: " + reason)
        .details(details)
        .build();
  }

  /** The request id a PROTOCOL_ERROR from {@link #decode} could read, if any. */
  public static Optional<String> readableRequestId(CallError error) {
    return error
        .details()
        .map(d -> d.get("requestId"))
        .filter(JsonNode::isString)
        .map(JsonNode::asString);
  }

  /** The reply topic a PROTOCOL_ERROR from {@link #decode} could read, if any. */
  public static Optional<String> readableReplyTo(CallError error) {
    return error
        .details()
        .map(d -> d.get("replyTo"))
        .filter(JsonNode::isString)
        .map(JsonNode::asString);
  }

  /**
   * Whether {@code topic} may be used as a reply topic: 1 to 256 ASCII letters, digits, '_', '.',
   * ':', '/', '@' or '-' (no spaces, no wildcards: NATS '*' and '>', Redis glob characters).
   */
  public static boolean isValidTopic(String topic) {
    return isMadeOf(topic, 256, Allowed.TOPIC_CHARS);
  }

  /**
   * Whether {@code requestId} is one the protocol accepts: 1 to 128 ASCII letters, digits, '_',
   * '.', ':' or '-', characters that need no escaping anywhere (UUIDs and hex fit).
   */
  public static boolean isValidRequestId(String requestId) {
    return isMadeOf(requestId, 128, Allowed.REQUEST_ID_CHARS);
  }

  /** Whether {@code text} from {@code start} on is a valid request id, without a substring. */
  static boolean isValidRequestId(String text, int start) {
    return isMadeOf(text, start, 128, Allowed.REQUEST_ID_CHARS);
  }

  // In a holder: the tables exist before any static initialiser of this class could need them.
  private static final class Allowed {
    static final boolean[] TOPIC_CHARS = asciiTable("_.:/@-");
    static final boolean[] REQUEST_ID_CHARS = asciiTable("_.:-");
  }

  /** ASCII letters, digits and {@code punctuation}, as a table indexed by character. */
  private static boolean[] asciiTable(String punctuation) {
    boolean[] allowed = new boolean[128];
    for (char c = '0'; c <= '9'; c++) {
      allowed[c] = true;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      allowed[c] = true;
      allowed[c - 'a' + 'A'] = true;
    }
    for (int i = 0; i < punctuation.length(); i++) {
      allowed[punctuation.charAt(i)] = true;
    }
    return allowed;
  }

  // A loop over a table, not a regex: these run several times per event (on every request id at
  // both ends), and a regex costs ten times more; the table saves the punctuation search per char.
  private static boolean isMadeOf(String text, int maxLength, boolean[] allowed) {
    return isMadeOf(text, 0, maxLength, allowed);
  }

  /** {@link #isMadeOf(String, int, boolean[])} for the text from {@code start} on. */
  private static boolean isMadeOf(String text, int start, int maxLength, boolean[] allowed) {
    int length = text.length();
    if (length <= start || length - start > maxLength) {
      return false;
    }
    for (int i = start; i < length; i++) {
      char c = text.charAt(i);
      if (c >= allowed.length || !allowed[c]) {
        return false;
      }
    }
    return true;
  }

  private static String firstLine(String text) {
    int end = text.indexOf('\n');
    return Json.cut(end < 0 ? text : text.substring(0, end), 200);
  }

  /** Compiles the event schema on first use only. */
  private static final class SchemaHolder {
    static final Schema SCHEMA = Schema.fromJson(load());

    private static JsonNode load() {
      try (InputStream in = CallEvents.class.getResourceAsStream(SCHEMA_RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException("Missing resource " + SCHEMA_RESOURCE + " (broken jar?)");
        }
        return Json.mapper().readTree(in);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + SCHEMA_RESOURCE, e);
      }
    }
  }
}
