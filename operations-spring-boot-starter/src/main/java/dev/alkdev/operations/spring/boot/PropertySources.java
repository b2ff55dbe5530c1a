package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.config.OpsConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The sources the properties name, as one {@link OpsConfig}: the files of {@code
 * operations.config-file} and {@code operations.mcp-servers-file}, and the sections {@code
 * operations.openapi}, {@code operations.mcp-servers} and {@code operations.sources}, read as
 * written (keys in their original case, lists as lists, placeholders unresolved) so that ops'
 * configuration rules, not a second copy of them, decide what is valid.
 */
final class PropertySources {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Section property → the ops configuration key it stands for. */
  private static final Map<String, String> SECTIONS =
      Map.of(
          "operations.openapi", "openapi",
          "operations.mcp-servers", "mcpServers",
          "operations.sources", "sources");

  private PropertySources() {}

  /**
   * @throws IllegalStateException naming the property whose value ops' rules refuse
   */
  static OpsConfig read(
      Environment environment,
      OperationsProperties properties,
      Path base,
      ResourceLoader resources) {
    OpsConfig config = OpsConfig.empty();
    config =
        config.plus(file("operations.config-file", properties.getConfigFile(), base, resources));
    config =
        config.plus(
            file("operations.mcp-servers-file", properties.getMcpServersFile(), base, resources));
    ObjectNode sections = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, String> section : SECTIONS.entrySet()) {
      JsonNode tree = tree(environment, section.getKey());
      if (tree != null) {
        sections.set(section.getValue(), tree);
      }
    }
    if (sections.get("openapi") instanceof ObjectNode openapi) {
      for (Map.Entry<String, JsonNode> entry : openapi.properties()) {
        if (entry.getValue() instanceof ObjectNode document
            && document.path("location").isString()) {
          String property = "operations.openapi." + entry.getKey() + ".location";
          document.put("location", local(property, document.get("location").asString(), resources));
        }
      }
    }
    if (sections.isEmpty()) {
      return config;
    }
    OpsConfig inline;
    try {
      inline = OpsConfig.parse(JSON.writeValueAsString(sections), "properties");
    } catch (ConfigException e) {
      throw new IllegalStateException(propertyNamed(e.getMessage()), e);
    }
    try {
      return config.plus(inline);
    } catch (ConfigException e) {
      throw new IllegalStateException("operations: " + e.getMessage(), e);
    }
  }

  private static OpsConfig file(
      String property, String value, Path base, ResourceLoader resources) {
    if (value == null || value.isBlank()) {
      return OpsConfig.empty();
    }
    try {
      return OpsConfig.read(base.resolve(local(property, value, resources)));
    } catch (ConfigException e) {
      throw new IllegalStateException(property + " (" + value + "): " + e.getMessage(), e);
    }
  }

  /**
   * Turns ops' "properties: openapi.pets.location is required" into
   * "operations.openapi.pets.location is required", so the message names the property to fix.
   */
  static String propertyNamed(String message) {
    String rest = message.startsWith("properties: ") ? message.substring(12) : message;
    for (Map.Entry<String, String> section : SECTIONS.entrySet()) {
      if (rest.startsWith(section.getValue() + ".") || rest.startsWith(section.getValue() + " ")) {
        return section.getKey() + rest.substring(section.getValue().length());
      }
    }
    return "operations: " + rest;
  }

  /**
   * {@code location} as a path ops can read: itself, unless it is a {@code classpath:} location,
   * which becomes its file, or (inside a jar) a copy in a temporary file deleted when the JVM
   * exits, so a packaged application can carry its documents.
   */
  static String local(String property, String location, ResourceLoader resources) {
    if (!location.startsWith(ResourceLoader.CLASSPATH_URL_PREFIX)) {
      return location;
    }
    Resource resource = resources.getResource(location);
    if (!resource.exists()) {
      throw new IllegalStateException(property + ": " + location + " is not on the class path");
    }
    if (resource.isFile()) {
      try {
        return resource.getFile().getAbsolutePath();
      } catch (IOException e) {
        // Copied below.
      }
    }
    String name = resource.getFilename() == null ? "document" : resource.getFilename();
    try (InputStream in = resource.getInputStream()) {
      Path copy = Files.createTempFile("operations-", "-" + name);
      copy.toFile().deleteOnExit();
      Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
      return copy.toString();
    } catch (IOException e) {
      throw new IllegalStateException(property + ": cannot read " + location + ": " + e, e);
    }
  }

  /**
   * Every property under {@code prefix} as a JSON tree; null if there is none. As Spring binds
   * them: a property set in several sources takes the first source's value, and a list is taken
   * whole from the first source that has any of its elements, never merged element by element.
   */
  static JsonNode tree(Environment environment, String prefix) {
    ConfigurationPropertyName root = ConfigurationPropertyName.of(prefix);
    Set<ConfigurationPropertyName> seen = new HashSet<>();
    Map<ConfigurationPropertyName, ConfigurationPropertySource> listOwners = new HashMap<>();
    ObjectNode tree = JsonNodeFactory.instance.objectNode();
    boolean any = false;
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource iterable)) {
        continue;
      }
      List<ConfigurationPropertyName> names = iterable.stream().filter(root::isAncestorOf).toList();
      for (ConfigurationPropertyName name : names) {
        if (!seen.add(name)) {
          continue; // a source earlier in the order set it: that one wins, as in Spring
        }
        ConfigurationPropertyName list = outermostList(name, root.getNumberOfElements());
        if (list != null
            && listOwners.putIfAbsent(list, source) != null
            && listOwners.get(list) != source) {
          continue; // an earlier source set this list: it is taken whole from there
        }
        ConfigurationProperty property = iterable.getConfigurationProperty(name);
        if (property == null || property.getValue() == null) {
          continue;
        }
        String key = name.getElement(name.getNumberOfElements() - 1, Form.ORIGINAL);
        put(tree, name, root.getNumberOfElements(), value(key, property.getValue()));
        any = true;
      }
    }
    return any ? tree : null;
  }

  /** The name of the outermost list {@code name} is an element of, or null. */
  private static ConfigurationPropertyName outermostList(ConfigurationPropertyName name, int from) {
    for (int i = from; i < name.getNumberOfElements(); i++) {
      if (name.isNumericIndex(i)) {
        return name.chop(i);
      }
    }
    return null;
  }

  private static void put(
      ObjectNode tree, ConfigurationPropertyName name, int from, JsonNode value) {
    JsonNode node = tree;
    int last = name.getNumberOfElements() - 1;
    for (int i = from; i <= last; i++) {
      boolean index = name.isNumericIndex(i);
      String element = name.getElement(i, Form.ORIGINAL);
      boolean nextIsIndex = i < last && name.isNumericIndex(i + 1);
      if (i == last) {
        set(node, element, index, value);
      } else {
        JsonNode child = get(node, element, index);
        if (child == null || !(nextIsIndex ? child.isArray() : child.isObject())) {
          child =
              nextIsIndex
                  ? JsonNodeFactory.instance.arrayNode()
                  : JsonNodeFactory.instance.objectNode();
          set(node, element, index, child);
        }
        node = child;
      }
    }
  }

  private static JsonNode get(JsonNode node, String element, boolean index) {
    if (index && node instanceof ArrayNode array) {
      int i = Integer.parseInt(element);
      return i < array.size() ? array.get(i) : null;
    }
    return node instanceof ObjectNode object ? object.get(element) : null;
  }

  private static void set(JsonNode node, String element, boolean index, JsonNode value) {
    if (index && node instanceof ArrayNode array) {
      int i = Integer.parseInt(element);
      while (array.size() <= i) {
        array.addNull();
      }
      array.set(i, value);
    } else if (node instanceof ObjectNode object) {
      object.set(element, value);
    }
  }

  /**
   * A value as JSON: YAML gives typed values; {@code .properties} files, environment variables and
   * the command line give text, which stays text (ops' settings are text) but for {@code disabled},
   * ops' one switch, where {@code true} and {@code false} mean the booleans.
   */
  private static JsonNode value(String key, Object value) {
    if (value instanceof Boolean b) {
      return JsonNodeFactory.instance.booleanNode(b);
    }
    if (key.equals("disabled") && (value.equals("true") || value.equals("false"))) {
      return JsonNodeFactory.instance.booleanNode(value.equals("true"));
    }
    if (value instanceof Integer || value instanceof Long) {
      return JsonNodeFactory.instance.numberNode(((Number) value).longValue());
    }
    if (value instanceof Number n) {
      return JsonNodeFactory.instance.numberNode(n.doubleValue());
    }
    return JsonNodeFactory.instance.stringNode(value.toString());
  }
}
