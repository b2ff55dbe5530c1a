package dev.alkdev.operations.discovery;

import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.internal.SpecJson;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.remote.internal.NodeIds;
import dev.alkdev.operations.serving.OperationStats;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes discovery messages: UTF-8 JSON objects with the protocol version {@code v}, a
 * {@code type} and the fields of that type, as {@code node-events.schema.json} describes them.
 * Unknown fields are ignored; anything else that does not fit is refused with an {@link
 * IllegalArgumentException}.
 */
final class NodeEvents {
  static final String HELLO = "node.hello";
  static final String HEARTBEAT = "node.heartbeat";
  static final String BYE = "node.bye";
  static final String QUERY = "node.query";
  static final String SPECS_REQUESTED = "node.specs.requested";
  static final String SPECS = "node.specs";
  static final String STATS_REQUESTED = "node.stats.requested";
  static final String STATS = "node.stats";

  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");

  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9_.:/@-]{1,256}");

  private static final JsonMapper READER =
      Json.boundedMapper(CallEvents.MAX_NESTING_DEPTH, Integer.MAX_VALUE)
          .rebuild()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private static final java.util.Base64.Encoder B64 =
      java.util.Base64.getUrlEncoder().withoutPadding();
  private static final java.util.Base64.Decoder B64_READ = java.util.Base64.getUrlDecoder();

  private NodeEvents() {}

  static byte[] encode(NodeEvent event) {
    ObjectNode json = Json.nodes().objectNode();
    json.put("v", CallEvents.PROTOCOL_VERSION);
    if (event instanceof NodeEvent.Hello hello) {
      json.put("type", HELLO);
      json.put("nodeId", hello.nodeId());
      json.put("digest", hello.digest());
      json.put("heartbeatMs", hello.heartbeatMillis());
      hello.specs().ifPresent(specs -> json.set("specs", specsJson(specs)));
      hello
          .proof()
          .ifPresent(
              proof -> {
                ObjectNode signed = json.putObject("proof");
                signed.put("keyId", proof.keyId());
                signed.put("signedAt", proof.signedAtMillis());
                signed.put("signature", B64.encodeToString(proof.signature()));
              });
    } else if (event instanceof NodeEvent.Heartbeat heartbeat) {
      json.put("type", HEARTBEAT);
      json.put("nodeId", heartbeat.nodeId());
      json.put("digest", heartbeat.digest());
      json.put("heartbeatMs", heartbeat.heartbeatMillis());
      json.put("inFlight", heartbeat.inFlight());
      json.put("draining", heartbeat.draining());
    } else if (event instanceof NodeEvent.Bye bye) {
      json.put("type", BYE);
      json.put("nodeId", bye.nodeId());
      json.put("drainMs", bye.drainMillis());
    } else if (event instanceof NodeEvent.Query query) {
      json.put("type", QUERY);
      json.put("replyTo", query.replyTo());
    } else if (event instanceof NodeEvent.SpecsRequested request) {
      json.put("type", SPECS_REQUESTED);
      json.put("replyTo", request.replyTo());
    } else if (event instanceof NodeEvent.Specs specs) {
      json.put("type", SPECS);
      json.put("nodeId", specs.nodeId());
      json.put("digest", specs.digest());
      json.put("part", specs.part());
      json.put("parts", specs.parts());
      json.set("specs", specsJson(specs.specs()));
    } else if (event instanceof NodeEvent.StatsRequested request) {
      json.put("type", STATS_REQUESTED);
      json.put("requestId", request.requestId());
      json.put("replyTo", request.replyTo());
      request.nodeId().ifPresent(id -> json.put("nodeId", id));
      request
          .identity()
          .ifPresent(
              identity -> {
                ObjectNode who = json.putObject("identity");
                who.put("subject", identity.subject());
                ArrayNode scopes = who.putArray("scopes");
                identity.scopes().stream().sorted().forEach(scopes::add);
              });
    } else if (event instanceof NodeEvent.Stats stats) {
      json.put("type", STATS);
      json.put("requestId", stats.requestId());
      json.put("nodeId", stats.nodeId());
      json.put("startedAt", stats.startedAt().toString());
      json.put("inFlight", stats.inFlight());
      json.put("draining", stats.draining());
      json.put("saturated", stats.saturated());
      ArrayNode operations = json.putArray("operations");
      stats.operations().forEach(op -> operations.add(operationJson(op)));
      json.put("omitted", stats.omitted());
    }
    return Json.mapper().writeValueAsBytes(json);
  }

  /** Reads one message; sizes are checked before parsing. */
  static NodeEvent decode(byte[] payload, int maxMessageBytes) {
    if (payload.length > maxMessageBytes) {
      throw new IllegalArgumentException(
          "a message of " + payload.length + " bytes, more than " + maxMessageBytes);
    }
    JsonNode json;
    try {
      json = READER.readTree(payload);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
    if (json == null || !json.isObject()) {
      throw new IllegalArgumentException("a message must be a JSON object");
    }
    JsonNode v = json.get("v");
    if (v == null || !v.isIntegralNumber() || v.asInt() != CallEvents.PROTOCOL_VERSION) {
      throw new IllegalArgumentException("\"v\" must be " + CallEvents.PROTOCOL_VERSION);
    }
    String type = text(json, "type");
    return switch (type) {
      case HELLO ->
          new NodeEvent.Hello(
              nodeId(json),
              digest(json),
              positive(json, "heartbeatMs"),
              json.hasNonNull("specs") ? Optional.of(specs(json)) : Optional.empty(),
              json.hasNonNull("proof") ? Optional.of(proof(json.get("proof"))) : Optional.empty());
      case HEARTBEAT ->
          new NodeEvent.Heartbeat(
              nodeId(json),
              digest(json),
              positive(json, "heartbeatMs"),
              (int) Math.min(Integer.MAX_VALUE, count(json, "inFlight")),
              json.path("draining").asBoolean(false));
      case BYE -> new NodeEvent.Bye(nodeId(json), count(json, "drainMs"));
      case QUERY -> new NodeEvent.Query(topic(json));
      case SPECS_REQUESTED -> new NodeEvent.SpecsRequested(topic(json));
      case SPECS -> {
        int part = (int) Math.min(Integer.MAX_VALUE, positive(json, "part"));
        int parts = (int) Math.min(Integer.MAX_VALUE, positive(json, "parts"));
        if (part > parts) {
          throw new IllegalArgumentException("part " + part + " of " + parts);
        }
        yield new NodeEvent.Specs(nodeId(json), digest(json), part, parts, specs(json));
      }
      case STATS_REQUESTED ->
          new NodeEvent.StatsRequested(
              requestId(json),
              topic(json),
              json.hasNonNull("nodeId") ? Optional.of(nodeId(json)) : Optional.empty(),
              identity(json));
      case STATS -> stats(json);
      default -> throw new IllegalArgumentException("unknown type \"" + type + "\"");
    };
  }

  /**
   * The digest that names a set of specs: SHA-256, in hex, of their JSON forms in id order, as one
   * JSON array. Equal specs give equal digests on every node.
   */
  static String digest(List<OperationSpec> specs) {
    List<OperationSpec> sorted = new ArrayList<>(specs);
    sorted.sort((a, b) -> a.id().compareTo(b.id()));
    byte[] bytes = Json.mapper().writeValueAsBytes(specsJson(sorted));
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every JDK has SHA-256", e);
    }
  }

  /** The size of one spec in a message, with its comma. */
  static int specBytes(OperationSpec spec) {
    return Json.mapper().writeValueAsBytes(SpecJson.toJson(spec)).length + 1;
  }

  static String show(byte[] payload) {
    return Json.cut(new String(payload, StandardCharsets.UTF_8), 200);
  }

  private static ArrayNode specsJson(List<OperationSpec> specs) {
    ArrayNode array = Json.nodes().arrayNode();
    specs.forEach(spec -> array.add(SpecJson.toJson(spec)));
    return array;
  }

  /** One operation's statistics as {@code node.stats} carries them. */
  static ObjectNode operationJson(OperationStats op) {
    ObjectNode json = Json.nodes().objectNode();
    json.put("id", op.operationId());
    json.put("calls", op.calls());
    json.put("errors", op.errors());
    ObjectNode byCode = json.putObject("errorsByCode");
    op.errorsByCode().forEach((code, n) -> byCode.put(code.name(), n));
    json.put("inFlight", op.inFlight());
    OperationStats.Latency latency = op.latency();
    ObjectNode micros = json.putObject("latencyUs");
    micros.put("count", latency.count());
    micros.put("avg", latency.averageMicros());
    micros.put("p50", latency.p50Micros());
    micros.put("p90", latency.p90Micros());
    micros.put("p99", latency.p99Micros());
    micros.put("max", latency.maxMicros());
    return json;
  }

  private static NodeEvent.Stats stats(JsonNode json) {
    Instant startedAt;
    try {
      startedAt = Instant.parse(text(json, "startedAt"));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("\"startedAt\" must be an ISO-8601 instant", e);
    }
    JsonNode operations = json.get("operations");
    if (operations == null || !operations.isArray()) {
      throw new IllegalArgumentException("\"operations\" must be an array");
    }
    List<OperationStats> out = new ArrayList<>(operations.size());
    for (JsonNode op : operations) {
      if (!op.isObject()) {
        throw new IllegalArgumentException("each of \"operations\" must be an object");
      }
      out.add(operation(op));
    }
    return new NodeEvent.Stats(
        requestId(json),
        nodeId(json),
        startedAt,
        (int) Math.min(Integer.MAX_VALUE, count(json, "inFlight")),
        json.path("draining").asBoolean(false),
        json.path("saturated").asBoolean(false), // absent from nodes older than the field
        out,
        json.hasNonNull("omitted") ? (int) Math.min(Integer.MAX_VALUE, count(json, "omitted")) : 0);
  }

  private static OperationStats operation(JsonNode json) {
    String id = text(json, "id");
    Map<ErrorCode, Long> byCode = new EnumMap<>(ErrorCode.class);
    JsonNode codes = json.get("errorsByCode");
    if (codes != null && !codes.isNull()) {
      if (!codes.isObject()) {
        throw new IllegalArgumentException("\"errorsByCode\" of " + id + " must be an object");
      }
      for (String name : codes.propertyNames()) {
        long n = count(codes, name);
        // Codes are a closed set, but a newer node may know one more: counted in errors only.
        codeNamed(name).ifPresent(code -> byCode.put(code, n));
      }
    }
    JsonNode latency = json.get("latencyUs");
    OperationStats.Latency measured = OperationStats.Latency.NONE;
    if (latency != null && !latency.isNull()) {
      if (!latency.isObject()) {
        throw new IllegalArgumentException("\"latencyUs\" of " + id + " must be an object");
      }
      measured =
          new OperationStats.Latency(
              count(latency, "count"),
              count(latency, "avg"),
              count(latency, "p50"),
              count(latency, "p90"),
              count(latency, "p99"),
              count(latency, "max"));
    }
    return new OperationStats(
        id, count(json, "calls"), count(json, "errors"), byCode, count(json, "inFlight"), measured);
  }

  private static Optional<ErrorCode> codeNamed(String name) {
    for (ErrorCode code : ErrorCode.values()) {
      if (code.name().equals(name)) {
        return Optional.of(code);
      }
    }
    return Optional.empty();
  }

  /** The identity a request names, read with the call protocol's limits. */
  private static Optional<Identity> identity(JsonNode json) {
    JsonNode who = json.get("identity");
    if (who == null || who.isNull()) {
      return Optional.empty();
    }
    if (!who.isObject()) {
      throw new IllegalArgumentException("\"identity\" must be an object with subject and scopes");
    }
    String subject = text(who, "subject");
    if (subject.isBlank()
        || subject.codePointCount(0, subject.length()) > CallEvents.MAX_SUBJECT_LENGTH) {
      throw new IllegalArgumentException(
          "\"identity.subject\" must be 1 to " + CallEvents.MAX_SUBJECT_LENGTH + " characters");
    }
    Set<String> scopes = new LinkedHashSet<>();
    JsonNode list = who.get("scopes");
    if (list != null && !list.isNull()) {
      if (!list.isArray() || list.size() > CallEvents.MAX_SCOPES) {
        throw new IllegalArgumentException(
            "\"identity.scopes\" must be an array of at most "
                + CallEvents.MAX_SCOPES
                + " strings");
      }
      for (JsonNode scope : list) {
        if (!scope.isString() || scope.asString().isBlank()) {
          throw new IllegalArgumentException("\"identity.scopes\" must hold non-blank strings");
        }
        scopes.add(scope.asString());
      }
    }
    return Optional.of(new Identity(subject, scopes));
  }

  private static List<OperationSpec> specs(JsonNode json) {
    JsonNode specs = json.get("specs");
    if (specs == null || !specs.isArray()) {
      throw new IllegalArgumentException("\"specs\" must be an array");
    }
    List<OperationSpec> out = new ArrayList<>(specs.size());
    for (JsonNode spec : specs) {
      out.add(SpecJson.fromJson(spec)); // names the field that is wrong
    }
    return out;
  }

  private static NodeEvent.Proof proof(JsonNode json) {
    if (!json.isObject()) {
      throw new IllegalArgumentException("\"proof\" must be an object");
    }
    String keyId = text(json, "keyId");
    if (keyId.length() > 64) {
      throw new IllegalArgumentException("\"proof.keyId\" is longer than 64 characters");
    }
    JsonNode at = json.get("signedAt");
    if (at == null || !at.isIntegralNumber() || !at.canConvertToLong()) {
      throw new IllegalArgumentException("\"proof.signedAt\" must be an integer (epoch ms)");
    }
    String signature = text(json, "signature");
    try {
      byte[] bytes = B64_READ.decode(signature);
      if (bytes.length != 64) {
        throw new IllegalArgumentException("an Ed25519 signature has 64 bytes");
      }
      return new NodeEvent.Proof(keyId, at.asLong(), bytes);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("\"proof.signature\": " + e.getMessage(), e);
    }
  }

  private static String nodeId(JsonNode json) {
    String id = text(json, "nodeId");
    if (!NodeIds.isValid(id)) {
      throw new IllegalArgumentException("\"nodeId\" must be 1 to 64 letters, digits, _ or -");
    }
    return id;
  }

  private static String digest(JsonNode json) {
    String digest = text(json, "digest");
    if (digest.isEmpty() || digest.length() > 128) {
      throw new IllegalArgumentException("\"digest\" must be 1 to 128 characters");
    }
    return digest;
  }

  private static String requestId(JsonNode json) {
    String id = text(json, "requestId");
    if (!REQUEST_ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "\"requestId\" must be 1 to 128 letters, digits, '_', '.', ':' or '-'");
    }
    return id;
  }

  private static String topic(JsonNode json) {
    String topic = text(json, "replyTo");
    if (!TOPIC.matcher(topic).matches()) {
      throw new IllegalArgumentException("\"replyTo\" is not a topic");
    }
    return topic;
  }

  private static String text(JsonNode json, String field) {
    JsonNode value = json.get(field);
    if (value == null || !value.isString()) {
      throw new IllegalArgumentException("\"" + field + "\" must be a string");
    }
    return value.asString();
  }

  private static long count(JsonNode json, String field) {
    JsonNode value = json.get(field);
    if (value == null || !value.isIntegralNumber() || value.asLong() < 0) {
      throw new IllegalArgumentException("\"" + field + "\" must be a whole number >= 0");
    }
    return value.asLong();
  }

  private static long positive(JsonNode json, String field) {
    long value = count(json, field);
    if (value == 0) {
      throw new IllegalArgumentException("\"" + field + "\" must be positive");
    }
    return value;
  }
}
