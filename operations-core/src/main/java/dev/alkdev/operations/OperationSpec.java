package dev.alkdev.operations;

import dev.alkdev.operations.schema.Schema;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.NullNode;

/**
 * What an operation is: its id ({@code namespace.name}), version, type, description, the schemas of
 * its input and output, and who may call it. Immutable; build one with {@link #builder}.
 *
 * <p>Ids are canonical by construction: a namespace is letters, digits, {@code _} and {@code -}; a
 * name may also hold single dots between those. The id is the namespace, a dot, and the name, and
 * it splits back at its first dot, so no two specs can share an id by accident of spelling. Only
 * ASCII is accepted, so look-alike letters from other scripts cannot forge an id. The id is built
 * once, here, and used as it is for every lookup and access check.
 *
 * <p>A value class: equal when every field is equal.
 */
public final class OperationSpec {

  private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern NAME =
      Pattern.compile("(?=.{1,128}$)[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*");

  private final String namespace;
  private final String name;
  private final String id;
  private final String version;
  private final OperationType type;
  private final String description;
  private final Schema inputSchema;
  private final Schema outputSchema;
  private final AccessControl accessControl;
  private final boolean idempotent;

  private OperationSpec(
      String namespace,
      String name,
      String version,
      OperationType type,
      String description,
      Schema inputSchema,
      Schema outputSchema,
      AccessControl accessControl,
      boolean idempotent) {
    checkNamespace(namespace);
    checkName(name);
    Objects.requireNonNull(version, "version");
    if (version.isBlank()) {
      throw new IllegalArgumentException("version of " + namespace + "." + name + " is blank");
    }
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(inputSchema, "inputSchema");
    Objects.requireNonNull(outputSchema, "outputSchema");
    Objects.requireNonNull(accessControl, "accessControl");
    this.namespace = namespace;
    this.name = name;
    this.id = namespace + "." + name;
    this.version = version;
    this.type = type;
    this.description = description;
    this.inputSchema = inputSchema;
    this.outputSchema = outputSchema;
    this.accessControl = accessControl;
    this.idempotent = idempotent;
  }

  /** The operation id: {@code namespace + "." + name}. */
  public String id() {
    return id;
  }

  /** Where the operation belongs ({@code "billing"}, an MCP server's name). */
  public String namespace() {
    return namespace;
  }

  /** The operation's name within its namespace. */
  public String name() {
    return name;
  }

  /** The spec's version, free text ({@code "1.0.0"} by default). */
  public String version() {
    return version;
  }

  /** Query, mutation or subscription. */
  public OperationType type() {
    return type;
  }

  /** What it does, for people and for agents choosing a tool. */
  public String description() {
    return description;
  }

  /** What the input must match; validated before the handler runs. */
  public Schema inputSchema() {
    return inputSchema;
  }

  /**
   * The input of a call that gives none, the same on every surface (an HTTP GET without parameters
   * or a POST without a body, an MCP {@code tools/call} without arguments, {@code ops} without
   * {@code --input}): an empty object when the input schema says {@code type: object}, so that its
   * defaults apply and its required properties are named; JSON null otherwise (no schema, or a
   * schema of another type).
   */
  public JsonNode noInput() {
    JsonNode type = inputSchema.json().path("type");
    boolean object = type.isString() && type.asString().equals("object");
    if (type.isArray()) {
      for (JsonNode t : type) {
        object |= t.asString("").equals("object");
      }
    }
    return object ? JsonNodeFactory.instance.objectNode() : NullNode.getInstance();
  }

  /** What {@code data} should match; output is cast to it, and a mismatch is logged. */
  public Schema outputSchema() {
    return outputSchema;
  }

  /** The scopes a caller needs. */
  public AccessControl accessControl() {
    return accessControl;
  }

  /**
   * Whether running the operation twice with the same input has the effect of running it once. A
   * QUERY is always safe to repeat; a MUTATION is retried on another node after a failure that may
   * have come after it ran (a node lost mid-call) only when this is true. MCP's {@code
   * idempotentHint} and OpenAPI's GET, HEAD, OPTIONS, PUT and DELETE set it; false by default.
   */
  public boolean idempotent() {
    return idempotent;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OperationSpec other
        && id.equals(other.id)
        && version.equals(other.version)
        && type == other.type
        && description.equals(other.description)
        && inputSchema.equals(other.inputSchema)
        && outputSchema.equals(other.outputSchema)
        && accessControl.equals(other.accessControl)
        && idempotent == other.idempotent;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        id, version, type, description, inputSchema, outputSchema, accessControl, idempotent);
  }

  @Override
  public String toString() {
    return "OperationSpec[" + id + " " + type + " v" + version + "]";
  }

  /**
   * This spec as JSON: {@code id}, {@code namespace}, {@code name}, {@code version}, {@code type},
   * {@code description}, {@code inputSchema}, {@code outputSchema}, {@code accessControl}, {@code
   * idempotent}.
   */
  public tools.jackson.databind.node.ObjectNode toJson() {
    return dev.alkdev.operations.internal.SpecJson.toJson(this);
  }

  /**
   * Reads a spec from its JSON form ({@link #toJson()}). {@code namespace} and {@code name} are
   * required, or an {@code id} alone in their place; an {@code id} given with them must agree. The
   * rest have defaults: {@code type} QUERY (any letter case), {@code version} "1.0.0", an empty
   * {@code description}, unknown schemas (also for {@code {}}), open access, not {@code
   * idempotent}. Unknown fields are ignored.
   *
   * @throws IllegalArgumentException naming the field that is missing or wrong
   */
  public static OperationSpec fromJson(tools.jackson.databind.JsonNode json) {
    return dev.alkdev.operations.internal.SpecJson.fromJson(json);
  }

  /**
   * A builder with type QUERY, version "1.0.0", no description, unknown schemas, open access, not
   * idempotent.
   */
  public static Builder builder(String namespace, String name) {
    return new Builder(namespace, name);
  }

  /** A builder that starts from this spec. */
  public Builder toBuilder() {
    return new Builder(namespace, name)
        .version(version)
        .type(type)
        .description(description)
        .inputSchema(inputSchema)
        .outputSchema(outputSchema)
        .accessControl(accessControl)
        .idempotent(idempotent);
  }

  /**
   * Splits an operation id into namespace and name, checking both.
   *
   * @throws IllegalArgumentException if it is not a valid id
   */
  public static String[] splitId(String operationId) {
    Objects.requireNonNull(operationId, "operationId");
    int dot = operationId.indexOf('.');
    if (dot < 0) {
      throw new IllegalArgumentException(
          "Operation id '"
              + printable(operationId)
              + "' has no namespace: expected namespace.name");
    }
    String namespace = operationId.substring(0, dot);
    String name = operationId.substring(dot + 1);
    checkNamespace(namespace);
    checkName(name);
    return new String[] {namespace, name};
  }

  /** Whether {@code operationId} is well-formed (namespace, a dot, a name). */
  public static boolean isValidId(String operationId) {
    // A loop that says what NAMESPACE '.' NAME say: every request is checked, at both ends, and
    // the two regexes (with their substrings) were a visible part of a call's CPU (D75).
    int dot = operationId.indexOf('.');
    if (dot <= 0 || dot > 64) {
      return false;
    }
    for (int i = 0; i < dot; i++) {
      if (!isIdChar(operationId.charAt(i))) {
        return false;
      }
    }
    int length = operationId.length();
    if (length - dot - 1 > 128) {
      return false;
    }
    boolean segmentEmpty = true; // the name's dots separate segments that are not empty
    for (int i = dot + 1; i < length; i++) {
      char c = operationId.charAt(i);
      if (c == '.') {
        if (segmentEmpty) {
          return false;
        }
        segmentEmpty = true;
      } else if (isIdChar(c)) {
        segmentEmpty = false;
      } else {
        return false;
      }
    }
    return !segmentEmpty;
  }

  private static boolean isIdChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c == '-';
  }

  /** The regex form of {@link #isValidId}, kept for the test that holds them equal. */
  static boolean isValidIdByPattern(String operationId) {
    int dot = operationId.indexOf('.');
    return dot > 0
        && NAMESPACE.matcher(operationId.substring(0, dot)).matches()
        && NAME.matcher(operationId.substring(dot + 1)).matches();
  }

  private static void checkNamespace(String namespace) {
    Objects.requireNonNull(namespace, "namespace");
    if (!NAMESPACE.matcher(namespace).matches()) {
      throw new IllegalArgumentException(
          "Invalid namespace '"
              + printable(namespace)
              + "': use 1 to 64 ASCII letters, digits, '_' or '-' (no dots: the first dot of an"
              + " id separates namespace and name)");
    }
  }

  private static void checkName(String name) {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "Invalid operation name '"
              + printable(name)
              + "': use 1 to 128 ASCII letters, digits, '_' or '-', optionally in parts joined"
              + " by single dots");
    }
  }

  /** Shows control characters in an error message instead of letting them through. */
  private static String printable(String text) {
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .limit(140)
        .forEach(
            cp -> {
              if (cp < 0x20 || cp == 0x7f) {
                out.append(String.format("\\u%04x", cp));
              } else {
                out.appendCodePoint(cp);
              }
            });
    return out.toString();
  }

  /** Builds an {@link OperationSpec}; {@link #build()} checks it. */
  public static final class Builder {
    private final String namespace;
    private final String name;
    private String version = "1.0.0";
    private OperationType type = OperationType.QUERY;
    private String description = "";
    private Schema inputSchema = Schema.unknown();
    private Schema outputSchema = Schema.unknown();
    private AccessControl accessControl = AccessControl.open();
    private boolean idempotent;

    private Builder(String namespace, String name) {
      this.namespace = namespace;
      this.name = name;
    }

    public Builder version(String version) {
      this.version = Objects.requireNonNull(version, "version");
      return this;
    }

    public Builder type(OperationType type) {
      this.type = Objects.requireNonNull(type, "type");
      return this;
    }

    public Builder description(String description) {
      this.description = Objects.requireNonNull(description, "description");
      return this;
    }

    public Builder inputSchema(Schema schema) {
      this.inputSchema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /** The input schema as JSON Schema text. */
    public Builder inputSchema(String jsonSchema) {
      return inputSchema(Schema.fromJson(jsonSchema));
    }

    public Builder outputSchema(Schema schema) {
      this.outputSchema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /** The output schema as JSON Schema text. */
    public Builder outputSchema(String jsonSchema) {
      return outputSchema(Schema.fromJson(jsonSchema));
    }

    public Builder accessControl(AccessControl accessControl) {
      this.accessControl = Objects.requireNonNull(accessControl, "accessControl");
      return this;
    }

    public Builder requiredScopes(String... scopes) {
      return accessControl(AccessControl.requireScopes(scopes));
    }

    /**
     * Whether the operation may safely run twice with the same input (see {@link #idempotent()}).
     */
    public Builder idempotent(boolean idempotent) {
      this.idempotent = idempotent;
      return this;
    }

    public OperationSpec build() {
      return new OperationSpec(
          namespace,
          name,
          version,
          type,
          description,
          inputSchema,
          outputSchema,
          accessControl,
          idempotent);
    }
  }
}
