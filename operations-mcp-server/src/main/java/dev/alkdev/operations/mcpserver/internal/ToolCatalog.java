package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.ToolNames;
import dev.alkdev.operations.mcpserver.McpTool;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The operations offered as tools, at one moment: an immutable snapshot rebuilt when the registry
 * changes. Names are made in operation-id order, so the same registry always gives the same names.
 */
final class ToolCatalog {
  /** MCP clients reject longer tool names (several cap at 64, though the spec allows 128). */
  static final int MAX_NAME = ToolNames.MAX_LENGTH;

  static final String META_OPERATION_ID = "dev.alkdev.operations/operationId";
  static final String META_INPUT_WRAPPED = "dev.alkdev.operations/inputWrappedAs";
  static final String META_ITEM_SCHEMA = "dev.alkdev.operations/itemSchema";
  static final String WRAPPED_INPUT = "input";

  /** One tool: its spec, its JSON for tools/list, how its arguments become the input. */
  record Tool(
      McpTool tool,
      OperationSpec spec,
      ObjectNode json,
      boolean wrapsInput,
      List<HeaderValues.Param> headerParams) {
    String name() {
      return tool.name();
    }

    boolean objectOutput() {
      return json.has("outputSchema");
    }
  }

  private final List<Tool> tools;
  private final Map<String, Tool> byName;
  private final List<String> collisions;

  private ToolCatalog(List<Tool> tools, List<String> collisions) {
    this.tools = List.copyOf(tools);
    Map<String, Tool> names = new HashMap<>();
    tools.forEach(tool -> names.put(tool.name(), tool));
    this.byName = names;
    this.collisions = List.copyOf(collisions);
  }

  static ToolCatalog build(
      List<OperationSpec> specs,
      String prefix,
      boolean namespaceInNames,
      boolean modelSafe,
      Predicate<String> selected) {
    List<OperationSpec> sorted = new ArrayList<>(specs);
    sorted.sort(Comparator.comparing(OperationSpec::id));
    Map<String, Tool> byName = new LinkedHashMap<>();
    List<String> collisions = new ArrayList<>();
    for (OperationSpec spec : sorted) {
      if (!selected.test(spec.id())) {
        continue;
      }
      String wanted = prefix + (namespaceInNames ? spec.id() : spec.name());
      if (modelSafe) {
        wanted = ToolNames.modelSafe(wanted);
      }
      String name = ToolNames.fit(wanted);
      if (byName.containsKey(name)) {
        // Two ids map to one name (a cut, or a prefix). The later id gets its CRC appended; a
        // second collision on that is reported and the tool left out rather than guessed.
        String other = ToolNames.distinct(wanted, spec.id());
        if (byName.containsKey(other)) {
          collisions.add(
              spec.id()
                  + " is not offered: its tool name "
                  + name
                  + " is taken by "
                  + byName.get(name).spec().id());
          continue;
        }
        collisions.add(
            spec.id()
                + " is offered as "
                + other
                + ": "
                + name
                + " is taken by "
                + byName.get(name).spec().id());
        name = other;
      }
      byName.put(name, tool(spec, name, !name.equals(wanted)));
    }
    return new ToolCatalog(new ArrayList<>(byName.values()), collisions);
  }

  private static Tool tool(OperationSpec spec, String name, boolean shortened) {
    ObjectNode json = Json.object();
    json.put("name", name);
    json.put("title", spec.id());
    // Clients (and the conformance suite) expect a description on every tool.
    json.put(
        "description",
        spec.description().isBlank() ? "Operation " + spec.id() : spec.description());
    JsonNode in = spec.inputSchema().json();
    boolean wraps = false;
    if (spec.inputSchema().isUnknown() || !in.isObject()) {
      json.set("inputSchema", Json.object().put("type", "object"));
    } else if (isObjectSchema(in)) {
      json.set("inputSchema", in);
    } else {
      // MCP arguments are always an object: a non-object input travels as its one property.
      ObjectNode wrapper = Json.object().put("type", "object");
      wrapper.putObject("properties").set(WRAPPED_INPUT, in);
      wrapper.putArray("required").add(WRAPPED_INPUT);
      json.set("inputSchema", wrapper);
      wraps = true;
    }
    JsonNode out = spec.outputSchema().json();
    if (!spec.outputSchema().isUnknown()
        && out.isObject()
        && isObjectSchema(out)
        && spec.type() != OperationType.SUBSCRIPTION) {
      json.set("outputSchema", out);
    }
    ObjectNode annotations = json.putObject("annotations");
    annotations.put("readOnlyHint", spec.type() == OperationType.QUERY);
    if (spec.type() == OperationType.QUERY || spec.idempotent()) {
      annotations.put("idempotentHint", true);
    }
    ObjectNode meta = json.putObject("_meta");
    meta.put(META_OPERATION_ID, spec.id());
    meta.put("dev.alkdev.operations/type", spec.type().name());
    if (wraps) {
      meta.put(META_INPUT_WRAPPED, WRAPPED_INPUT);
    }
    if (spec.type() == OperationType.SUBSCRIPTION && !spec.outputSchema().isUnknown()) {
      // A stream's output schema is its items'; MCP's outputSchema is the one result's.
      meta.set(META_ITEM_SCHEMA, out);
    }
    List<HeaderValues.Param> headers =
        wraps ? List.of() : HeaderValues.params(json.path("inputSchema"));
    return new Tool(new McpTool(name, spec.id(), shortened), spec, json, wraps, headers);
  }

  /** A schema whose instances are objects: {@code type: "object"} (alone or first of a list). */
  static boolean isObjectSchema(JsonNode schema) {
    JsonNode type = schema.get("type");
    if (type == null) {
      return false;
    }
    if (type.isString()) {
      return "object".equals(type.asString());
    }
    return type.isArray() && type.size() == 1 && "object".equals(type.get(0).asString());
  }

  Tool byName(String name) {
    return byName.get(name);
  }

  List<Tool> tools() {
    return tools;
  }

  /** The tools {@code identity} may call (the spec's access control, the pipeline's own rule). */
  List<Tool> visibleTo(Identity identity) {
    List<Tool> visible = new ArrayList<>(tools.size());
    for (Tool tool : tools) {
      if (tool.spec().accessControl().allows(identity)) {
        visible.add(tool);
      }
    }
    return Collections.unmodifiableList(visible);
  }

  List<String> collisions() {
    return collisions;
  }

  /** Whether {@code other} offers the same tools with the same JSON (list_changed otherwise). */
  boolean sameAs(ToolCatalog other) {
    if (other.tools.size() != tools.size()) {
      return false;
    }
    for (int i = 0; i < tools.size(); i++) {
      if (!tools.get(i).json().equals(other.tools.get(i).json())) {
        return false;
      }
    }
    return true;
  }
}
