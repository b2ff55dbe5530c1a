package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.alkdev.operations.envelope.internal.WireJson;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One block of an MCP tool result's {@code content}: our own types, not the MCP SDK's, so that core
 * does not depend on it (the MCP adapter maps SDK blocks to these).
 *
 * <p>The five types the seeds define are records here. MCP keeps adding block types, so the set
 * stays open: a block of any other type is an {@link Unknown} that holds its JSON unchanged (the
 * seeds turn it into a text block of its JSON string instead, which loses its type). Fields a known
 * block does not model ({@code _meta}, {@code title}, ... from newer MCP versions) are kept in
 * {@code unknownFields}, so every block's JSON round-trips unchanged.
 */
public sealed interface McpContentBlock {

  /** The block's {@code type}: {@code "text"}, {@code "image"}, ..., or an unknown block's type. */
  String type();

  /** This block as JSON, {@code type} first. Also what Jackson writes for it. */
  ObjectNode toJson();

  /** A text block. */
  static Text text(String text) {
    return new Text(text, Optional.empty(), Map.of());
  }

  /** An image block, its bytes base64-encoded. */
  static Image image(String base64Data, String mimeType) {
    return new Image(base64Data, mimeType, Optional.empty(), Map.of());
  }

  /** An audio block, its bytes base64-encoded. */
  static Audio audio(String base64Data, String mimeType) {
    return new Audio(base64Data, mimeType, Optional.empty(), Map.of());
  }

  /** A block embedding a resource's contents. */
  static Resource resource(McpResourceContent resource) {
    return new Resource(resource, Optional.empty(), Map.of());
  }

  /** A block linking to a resource by URI. */
  static ResourceLink resourceLink(String uri, String name) {
    return new ResourceLink(uri, name, Optional.empty(), Optional.empty(), Map.of());
  }

  /**
   * A block of a type the seeds do not define, kept as its JSON.
   *
   * @throws IllegalArgumentException if {@code raw} has no string {@code type}, or a known one
   */
  static Unknown unknown(ObjectNode raw) {
    return new Unknown(raw);
  }

  /**
   * {@code {"type": "text", "text": ..., "annotations"?: ...}}.
   *
   * @param text the text
   * @param annotations hints for the client
   * @param unknownFields other fields, kept as received
   */
  record Text(
      String text, Optional<McpAnnotations> annotations, Map<String, JsonNode> unknownFields)
      implements McpContentBlock {
    private static final Set<String> KNOWN = Set.of("type", "text", "annotations");

    public Text {
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(annotations, "annotations");
      unknownFields = WireJson.unknownFields(unknownFields, "McpContentBlock.Text", KNOWN);
    }

    public Text withAnnotations(McpAnnotations annotations) {
      return new Text(text, Optional.of(annotations), unknownFields);
    }

    @Override
    public String type() {
      return "text";
    }

    @Override
    @JsonValue
    public ObjectNode toJson() {
      ObjectNode json = WireJson.object();
      json.put("type", type());
      json.put("text", text);
      annotations.ifPresent(value -> json.set("annotations", value.toJson()));
      return WireJson.putUnknown(json, unknownFields);
    }
  }

  /**
   * {@code {"type": "image", "data": ..., "mimeType": ..., "annotations"?: ...}}.
   *
   * @param data the image bytes, base64-encoded (kept encoded, as received)
   * @param mimeType the image's media type
   * @param annotations hints for the client
   * @param unknownFields other fields, kept as received
   */
  record Image(
      String data,
      String mimeType,
      Optional<McpAnnotations> annotations,
      Map<String, JsonNode> unknownFields)
      implements McpContentBlock {
    private static final Set<String> KNOWN = Set.of("type", "data", "mimeType", "annotations");

    public Image {
      Objects.requireNonNull(data, "data");
      Objects.requireNonNull(mimeType, "mimeType");
      Objects.requireNonNull(annotations, "annotations");
      unknownFields = WireJson.unknownFields(unknownFields, "McpContentBlock.Image", KNOWN);
    }

    public Image withAnnotations(McpAnnotations annotations) {
      return new Image(data, mimeType, Optional.of(annotations), unknownFields);
    }

    @Override
    public String type() {
      return "image";
    }

    @Override
    @JsonValue
    public ObjectNode toJson() {
      return binaryJson(type(), data, mimeType, annotations, unknownFields);
    }
  }

  /**
   * {@code {"type": "audio", "data": ..., "mimeType": ..., "annotations"?: ...}}.
   *
   * @param data the audio bytes, base64-encoded (kept encoded, as received)
   * @param mimeType the audio's media type
   * @param annotations hints for the client
   * @param unknownFields other fields, kept as received
   */
  record Audio(
      String data,
      String mimeType,
      Optional<McpAnnotations> annotations,
      Map<String, JsonNode> unknownFields)
      implements McpContentBlock {
    private static final Set<String> KNOWN = Set.of("type", "data", "mimeType", "annotations");

    public Audio {
      Objects.requireNonNull(data, "data");
      Objects.requireNonNull(mimeType, "mimeType");
      Objects.requireNonNull(annotations, "annotations");
      unknownFields = WireJson.unknownFields(unknownFields, "McpContentBlock.Audio", KNOWN);
    }

    public Audio withAnnotations(McpAnnotations annotations) {
      return new Audio(data, mimeType, Optional.of(annotations), unknownFields);
    }

    @Override
    public String type() {
      return "audio";
    }

    @Override
    @JsonValue
    public ObjectNode toJson() {
      return binaryJson(type(), data, mimeType, annotations, unknownFields);
    }
  }

  /**
   * {@code {"type": "resource", "resource": {...}, "annotations"?: ...}}.
   *
   * @param resource the embedded resource's contents
   * @param annotations hints for the client
   * @param unknownFields other fields, kept as received
   */
  record Resource(
      McpResourceContent resource,
      Optional<McpAnnotations> annotations,
      Map<String, JsonNode> unknownFields)
      implements McpContentBlock {
    private static final Set<String> KNOWN = Set.of("type", "resource", "annotations");

    public Resource {
      Objects.requireNonNull(resource, "resource");
      Objects.requireNonNull(annotations, "annotations");
      unknownFields = WireJson.unknownFields(unknownFields, "McpContentBlock.Resource", KNOWN);
    }

    public Resource withAnnotations(McpAnnotations annotations) {
      return new Resource(resource, Optional.of(annotations), unknownFields);
    }

    @Override
    public String type() {
      return "resource";
    }

    @Override
    @JsonValue
    public ObjectNode toJson() {
      ObjectNode json = WireJson.object();
      json.put("type", type());
      json.set("resource", resource.toJson());
      annotations.ifPresent(value -> json.set("annotations", value.toJson()));
      return WireJson.putUnknown(json, unknownFields);
    }
  }

  /**
   * {@code {"type": "resource_link", "uri": ..., "name": ..., "description"?: ..., "mimeType"?:
   * ...}}. The seeds give it no annotations; annotations a server sends are kept with the other
   * unknown fields.
   *
   * @param uri the linked resource's URI
   * @param name its name
   * @param description what it is
   * @param mimeType its media type
   * @param unknownFields other fields, kept as received
   */
  record ResourceLink(
      String uri,
      String name,
      Optional<String> description,
      Optional<String> mimeType,
      Map<String, JsonNode> unknownFields)
      implements McpContentBlock {
    private static final Set<String> KNOWN =
        Set.of("type", "uri", "name", "description", "mimeType");

    public ResourceLink {
      Objects.requireNonNull(uri, "uri");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(description, "description");
      Objects.requireNonNull(mimeType, "mimeType");
      unknownFields = WireJson.unknownFields(unknownFields, "McpContentBlock.ResourceLink", KNOWN);
    }

    @Override
    public String type() {
      return "resource_link";
    }

    @Override
    @JsonValue
    public ObjectNode toJson() {
      ObjectNode json = WireJson.object();
      json.put("type", type());
      json.put("uri", uri);
      json.put("name", name);
      description.ifPresent(value -> json.put("description", value));
      mimeType.ifPresent(value -> json.put("mimeType", value));
      return WireJson.putUnknown(json, unknownFields);
    }
  }

  /**
   * A block of a type the seeds do not define ({@code "video"}, say, from a newer MCP version),
   * kept as received so it can be passed on or rendered by code that knows the type.
   *
   * @param raw the block's JSON, {@code type} included; shared, not copied
   */
  record Unknown(ObjectNode raw) implements McpContentBlock {

    public Unknown {
      Objects.requireNonNull(raw, "raw");
      JsonNode type = raw.get("type");
      if (type == null || !type.isString()) {
        throw new IllegalArgumentException(
            "An unknown content block still needs a string \"type\", was " + raw);
      }
      if (WireJson.KNOWN_BLOCK_TYPES.contains(type.stringValue())) {
        throw new IllegalArgumentException(
            "\""
                + type.stringValue()
                + "\" is a known block type; use its McpContentBlock record instead");
      }
    }

    @Override
    public String type() {
      return raw.get("type").stringValue();
    }

    /** The raw JSON, unchanged (shared, not copied). */
    @Override
    @JsonValue
    public ObjectNode toJson() {
      return raw;
    }
  }

  private static ObjectNode binaryJson(
      String type,
      String data,
      String mimeType,
      Optional<McpAnnotations> annotations,
      Map<String, JsonNode> unknownFields) {
    ObjectNode json = WireJson.object();
    json.put("type", type);
    json.put("data", data);
    json.put("mimeType", mimeType);
    annotations.ifPresent(value -> json.set("annotations", value.toJson()));
    return WireJson.putUnknown(json, unknownFields);
  }
}
