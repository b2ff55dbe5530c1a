package dev.alkdev.operations.schema.internal.importing;

import dev.alkdev.operations.schema.SchemaDialect;
import java.util.Locale;
import java.util.Optional;

/** The JSON Schema drafts an imported document may name in {@code $schema}. */
enum Draft {
  DRAFT_04("http://json-schema.org/draft-04/schema#"),
  DRAFT_06("http://json-schema.org/draft-06/schema#"),
  DRAFT_07("http://json-schema.org/draft-07/schema#"),
  DRAFT_2019_09("https://json-schema.org/draft/2019-09/schema"),
  DRAFT_2020_12("https://json-schema.org/draft/2020-12/schema");

  /** The OpenAPI 3.1 dialects: draft 2020-12 plus annotations. */
  private static final String OPENAPI_3_1_DIALECT_PREFIX = "spec.openapis.org/oas/3.1/dialect/";

  private final String uri;

  Draft(String uri) {
    this.uri = uri;
  }

  /** The canonical {@code $schema} value, the one the compiler recognises. */
  String uri() {
    return uri;
  }

  /** The draft of a {@code $schema} value, tolerating http/https, "www." and a trailing "#". */
  static Optional<Draft> of(String schemaUri) {
    String key = schemaUri.trim().toLowerCase(Locale.ROOT);
    key = key.replaceFirst("^https?://(www\\.)?", "").replaceFirst("#?$", "");
    if (key.endsWith("/")) {
      key = key.substring(0, key.length() - 1);
    }
    if (key.startsWith(OPENAPI_3_1_DIALECT_PREFIX)) {
      return Optional.of(DRAFT_2020_12);
    }
    switch (key) {
      case "json-schema.org/draft-04/schema":
        return Optional.of(DRAFT_04);
      case "json-schema.org/draft-06/schema":
        return Optional.of(DRAFT_06);
      case "json-schema.org/draft-07/schema":
        return Optional.of(DRAFT_07);
      case "json-schema.org/draft/2019-09/schema":
        return Optional.of(DRAFT_2019_09);
      case "json-schema.org/draft/2020-12/schema":
        return Optional.of(DRAFT_2020_12);
      default:
        return Optional.empty();
    }
  }

  static Draft of(SchemaDialect dialect) {
    return dialect == SchemaDialect.DRAFT_07 ? DRAFT_07 : DRAFT_2020_12;
  }

  /** Whether {@code items} may be an array (tuple form), before 2020-12's {@code prefixItems}. */
  boolean hasArrayItems() {
    return this != DRAFT_2020_12;
  }

  /** Whether {@code exclusiveMinimum}/{@code exclusiveMaximum} are booleans (draft-04 only). */
  boolean hasBooleanExclusiveBounds() {
    return this == DRAFT_04;
  }

  /** Whether {@code dependentRequired}/{@code dependentSchemas} replace {@code dependencies}. */
  boolean hasDependentKeywords() {
    return this == DRAFT_2019_09 || this == DRAFT_2020_12;
  }
}
