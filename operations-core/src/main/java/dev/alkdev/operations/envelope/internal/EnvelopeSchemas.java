package dev.alkdev.operations.envelope.internal;

import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.schema.Schema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The envelope's JSON Schema, read from {@code response-envelope.schema.json} beside the envelope
 * types and compiled the first time it is asked for (class initialisation of this holder), not when
 * envelopes are merely built.
 */
public final class EnvelopeSchemas {
  private static final String RESOURCE =
      "/dev/alkdev/operations/envelope/response-envelope.schema.json";

  private static final ObjectNode DOCUMENT = load();

  /** The whole envelope. */
  public static final Schema RESPONSE_ENVELOPE = Schema.fromJson(DOCUMENT);

  /** Any one meta, discriminated on {@code source}. */
  public static final Schema RESPONSE_META = definition("ResponseMeta");

  /** Any one MCP content block, known or not. */
  public static final Schema MCP_CONTENT_BLOCK = definition("McpContentBlock");

  private EnvelopeSchemas() {}

  /** A schema whose root is {@code $defs/name} of the envelope document (same definitions). */
  private static Schema definition(String name) {
    ObjectNode root = Json.nodes().objectNode();
    root.set("$schema", DOCUMENT.get("$schema"));
    root.put("$ref", "#/$defs/" + name);
    root.set("$defs", DOCUMENT.get("$defs"));
    return Schema.fromJson(root);
  }

  private static ObjectNode load() {
    try (InputStream in = EnvelopeSchemas.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + RESOURCE + " (broken jar?)");
      }
      JsonNode document = Json.mapper().readTree(in);
      return (ObjectNode) document;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + RESOURCE, e);
    }
  }
}
