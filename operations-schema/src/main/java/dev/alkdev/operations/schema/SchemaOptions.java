package dev.alkdev.operations.schema;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How schemas are compiled: limits, default dialect, format assertion, and where {@code $ref}s
 * outside the document may be loaded from.
 *
 * <p>By default nothing outside the document is loaded: a {@code $ref} to another document fails
 * compilation (or, through {@link FromSchema}, becomes "unknown"). {@link Builder#mapPrefix}
 * redirects ids under a prefix to a local folder or an allowed URL.
 *
 * @param limits the hostile-input guards
 * @param defaultDialect the draft used when a document has no {@code $schema}
 * @param formatAssertions whether {@code format} is asserted (draft 2020-12 only annotates it
 *     unless this is set; draft-07 documents always assert it)
 * @param prefixMappings id prefix to replacement prefix ({@code file:} or {@code http(s):}), tried
 *     in order
 */
public record SchemaOptions(
    SchemaLimits limits,
    SchemaDialect defaultDialect,
    boolean formatAssertions,
    Map<String, String> prefixMappings) {

  private static final SchemaOptions DEFAULTS = builder().build();

  public SchemaOptions {
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(defaultDialect, "defaultDialect");
    prefixMappings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(prefixMappings));
  }

  public static SchemaOptions defaults() {
    return DEFAULTS;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder that starts from these options. */
  public Builder toBuilder() {
    Builder builder =
        new Builder()
            .limits(limits)
            .defaultDialect(defaultDialect)
            .formatAssertions(formatAssertions);
    prefixMappings.forEach(builder::mapPrefix);
    return builder;
  }

  /** Builds {@link SchemaOptions}. */
  public static final class Builder {
    private SchemaLimits limits = SchemaLimits.defaults();
    private SchemaDialect defaultDialect = SchemaDialect.DRAFT_2020_12;
    private boolean formatAssertions;
    private final Map<String, String> prefixMappings = new LinkedHashMap<>();

    private Builder() {}

    public Builder limits(SchemaLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    public Builder defaultDialect(SchemaDialect dialect) {
      this.defaultDialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    public Builder formatAssertions(boolean enabled) {
      this.formatAssertions = enabled;
      return this;
    }

    /**
     * Loads documents whose id starts with {@code idPrefix} from {@code replacementPrefix} instead:
     * a {@code file:} folder, or an {@code http:}/{@code https:} location you trust.
     */
    public Builder mapPrefix(String idPrefix, String replacementPrefix) {
      Objects.requireNonNull(idPrefix, "idPrefix");
      Objects.requireNonNull(replacementPrefix, "replacementPrefix");
      if (!List.of("file:", "http:", "https:").stream().anyMatch(replacementPrefix::startsWith)) {
        throw new IllegalArgumentException(
            "replacementPrefix must start with file:, http: or https:, was " + replacementPrefix);
      }
      prefixMappings.put(idPrefix, replacementPrefix);
      return this;
    }

    public SchemaOptions build() {
      return new SchemaOptions(limits, defaultDialect, formatAssertions, prefixMappings);
    }
  }
}
