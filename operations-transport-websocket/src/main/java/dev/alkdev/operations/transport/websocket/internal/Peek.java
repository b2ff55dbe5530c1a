package dev.alkdev.operations.transport.websocket.internal;

import dev.alkdev.operations.Identity;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * The few top-level fields of an event that the hub's permission rules need ({@code type}, {@code
 * requestId}, {@code replyTo}, {@code operationId}, {@code nodeId}, {@code inbox}, {@code demand}
 * and, for the hub's own requests, {@code identity}), read with a streaming parser that skips every
 * other value without building it. The receiver decodes the whole event again; the hub never
 * forwards anything it decoded, only the bytes it received.
 *
 * <p>A name read twice makes the peek fail: parsers disagree on which of two duplicates wins, so a
 * relay that checked one {@code requestId} could pass an event whose receiver reads the other (the
 * protocol refuses duplicates for this reason, section 3).
 */
public final class Peek {
  private static final JsonFactory JSON = JsonFactory.builder().build();

  /** What a payload that is not a readable JSON object peeks as. */
  public static final Peek UNREADABLE = new Peek(false);

  public final boolean readable;
  public String type;
  public String requestId;
  public String replyTo;
  public String operationId;
  public String nodeId;
  public String inbox;
  public boolean hasDemand;
  public long deadlineMs = -1;
  public Identity identity;

  /** The {@code id} of each object in a top-level {@code specs} array (an announcement's). */
  public List<String> specIds = List.of();

  private Peek(boolean readable) {
    this.readable = readable;
  }

  /**
   * Peeks {@code payload}; {@link #UNREADABLE} when it is not a JSON object (or has duplicates).
   */
  public static Peek of(byte[] payload, boolean withIdentity) {
    Peek peek = new Peek(true);
    // Names seen so far: an event has a dozen at most, so a scan of a small array beats a hash
    // set (which allocated and resized on every peek, twice per relayed call); past 16 names a
    // set takes over.
    String[] seen = new String[16];
    int seenCount = 0;
    Set<String> many = null;
    try (JsonParser parser =
        JSON.createParser(ObjectReadContext.empty(), payload, 0, payload.length)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return UNREADABLE;
      }
      JsonToken token;
      while ((token = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
        String name = parser.currentName();
        if (many != null) {
          if (!many.add(name)) {
            return UNREADABLE;
          }
        } else {
          for (int i = 0; i < seenCount; i++) {
            if (seen[i].equals(name)) {
              return UNREADABLE;
            }
          }
          if (seenCount < seen.length) {
            seen[seenCount++] = name;
          } else {
            many = new java.util.HashSet<>(java.util.Arrays.asList(seen));
            many.add(name);
          }
        }
        JsonToken value = parser.nextToken();
        switch (name) {
          case "type" -> peek.type = text(parser, value);
          case "requestId" -> peek.requestId = text(parser, value);
          case "replyTo" -> peek.replyTo = text(parser, value);
          case "operationId" -> peek.operationId = text(parser, value);
          case "nodeId" -> peek.nodeId = text(parser, value);
          case "inbox" -> peek.inbox = text(parser, value);
          case "demand" -> {
            peek.hasDemand = value != JsonToken.VALUE_NULL;
            parser.skipChildren();
          }
          case "deadlineMs" -> {
            if (value == JsonToken.VALUE_NUMBER_INT) {
              peek.deadlineMs = Math.max(0, parser.getLongValue());
            } else {
              parser.skipChildren();
            }
          }
          case "specs" -> {
            if (value == JsonToken.START_ARRAY) {
              peek.specIds = specIds(parser);
            } else {
              parser.skipChildren();
            }
          }
          case "identity" -> {
            if (withIdentity && value == JsonToken.START_OBJECT) {
              peek.identity = identity(parser);
            } else {
              parser.skipChildren();
            }
          }
          default -> parser.skipChildren();
        }
      }
      if (token != JsonToken.END_OBJECT || parser.nextToken() != null) {
        return UNREADABLE;
      }
      return peek;
    } catch (JacksonException | IllegalArgumentException e) {
      return UNREADABLE;
    }
  }

  /** The ids of the specs in an array, the parser on its start; it ends on the array's end. */
  private static List<String> specIds(JsonParser parser) {
    List<String> ids = new ArrayList<>();
    JsonToken token;
    while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
      if (token != JsonToken.START_OBJECT) {
        parser.skipChildren();
        continue;
      }
      while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if ("id".equals(name) && value == JsonToken.VALUE_STRING) {
          ids.add(parser.getText());
        } else {
          parser.skipChildren();
        }
      }
    }
    return ids;
  }

  /** Whether the event ends its call: an error, a completed stream, or a unary call's response. */
  public static boolean isTerminal(String type, boolean stream) {
    return "call.error".equals(type)
        || "call.completed".equals(type)
        || ("call.responded".equals(type) && !stream);
  }

  private static String text(JsonParser parser, JsonToken value) {
    if (value == JsonToken.VALUE_STRING) {
      return parser.getString();
    }
    parser.skipChildren();
    return null;
  }

  // The identity a hub-local caller wrote: believed, since the hub's own code wrote it.
  private static Identity identity(JsonParser parser) {
    String subject = null;
    Set<String> scopes = new LinkedHashSet<>();
    JsonToken token;
    while ((token = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
      String name = parser.currentName();
      JsonToken value = parser.nextToken();
      if ("subject".equals(name) && value == JsonToken.VALUE_STRING) {
        subject = parser.getString();
      } else if ("scopes".equals(name) && value == JsonToken.START_ARRAY) {
        while ((token = parser.nextToken()) == JsonToken.VALUE_STRING) {
          scopes.add(parser.getString());
        }
        if (token != JsonToken.END_ARRAY) {
          parser.skipChildren();
        }
      } else {
        parser.skipChildren();
      }
    }
    if (subject == null || subject.isBlank()) {
      return null;
    }
    try {
      return new Identity(subject, scopes);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
