package dev.alkdev.operations.protocol;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.internal.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fast reader of {@link CallEvent}s: the top-level fields straight from the parser, payloads as
 * trees. Anything that is not a plain valid event goes to {@link EventReader}, so that errors and
 * their details are the reference reader's.
 */
final class StreamingEventReader {
  private StreamingEventReader() {}

  /**
   * The fast reader: the top-level fields straight from the parser, the payloads ({@code input},
   * {@code output}, {@code error}, {@code identity}, {@code meta}) as trees, then the same checks
   * as {@link EventReader#fromJson}. It returns null, or throws, for anything that is not a plain
   * valid event (a null or wrongly typed field, a number written as 1.0, any check that fails, any
   * damage), and the caller then reads the message with {@link EventReader#decodeTree}, so errors
   * and their details are exactly the tree reader's. The parser keeps the same limits (nesting);
   * duplicate names are checked here.
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
    try (JsonParser parser =
        EventReader.READER.tokenStreamFactory().createParser(STREAMING, bytes)) {
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
    if (version != CallEvents.PROTOCOL_VERSION || type == null) {
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
            EventReader.meta(meta, null));
      case "call.responded":
        return output == null
            ? null
            : new CallEvent.Responded(requestId, Envelopes.fromJson(output));
      case "call.error":
        return EventReader.failed(error, null, requestId);
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
   * as {@code EventReader.identity} checks them; anything else (another field, a wrong type, a
   * value it refuses) goes to the tree reader. An identity is in every request, and its tree and
   * the set copied from it were a fifth of what decoding a request allocated.
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
          if (scope.isBlank() || count == CallEvents.MAX_SCOPES) {
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
        || subject.codePointCount(0, subject.length()) > CallEvents.MAX_SUBJECT_LENGTH) {
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
   * left out: {@link StreamingEventReader#decodeStreaming} finds them itself, without a hash set
   * per object.
   */
  private static final ObjectReadContext STREAMING =
      new ObjectReadContext.Base() {
        private final int features =
            EventReader.READER.deserializationConfig().getStreamReadFeatures()
                & ~StreamReadFeature.STRICT_DUPLICATE_DETECTION.getMask();

        @Override
        public int getStreamReadFeatures(int defaults) {
          return features;
        }

        @Override
        public StreamReadConstraints streamReadConstraints() {
          return EventReader.READER.tokenStreamFactory().streamReadConstraints();
        }

        @Override
        public TokenStreamFactory tokenStreamFactory() {
          return EventReader.READER.tokenStreamFactory();
        }
      };
}
