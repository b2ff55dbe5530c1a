package dev.alkdev.operations.schema;

/**
 * The JSON Schema drafts the engine compiles. A document's {@code $schema} wins over the default.
 */
public enum SchemaDialect {
  DRAFT_2020_12("https://json-schema.org/draft/2020-12/schema"),
  DRAFT_07("http://json-schema.org/draft-07/schema#");

  private final String metaSchemaUri;

  SchemaDialect(String metaSchemaUri) {
    this.metaSchemaUri = metaSchemaUri;
  }

  /** The {@code $schema} URI that names this dialect. */
  public String metaSchemaUri() {
    return metaSchemaUri;
  }
}
