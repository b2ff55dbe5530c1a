package dev.alkdev.operations.codegen;

import dev.alkdev.operations.OperationSpec;
import java.util.List;
import java.util.Objects;

/**
 * Writes Java sources for operation specs: a record (or enum) for every object (or string enum)
 * schema of their inputs and outputs, and one interface per namespace whose methods are its
 * operations, annotated so that typed clients and typed implementations can use them.
 *
 * <pre>{@code
 * GeneratedSources sources = JavaGenerator.builder("com.example.pets").build().generate(specs);
 * sources.writeTo(Path.of("src/main/java"));
 * sources.notes().forEach(System.err::println); // where the mapping is not exact
 * }</pre>
 *
 * <p>Any schema is accepted (draft 4 to 2020-12, OpenAPI's {@code nullable}); what Java cannot say
 * exactly becomes {@code JsonNode}, with a note. The output depends only on the specs, not on their
 * order or on the machine: generating twice gives the same bytes. Immutable and thread-safe.
 */
public final class JavaGenerator {
  private final String packageName;
  private final boolean async;

  private JavaGenerator(Builder builder) {
    this.packageName = builder.packageName;
    this.async = builder.async;
  }

  /**
   * A generator of sources in {@code packageName}, blocking methods by default.
   *
   * @throws IllegalArgumentException if {@code packageName} is not a Java package name
   */
  public static Builder builder(String packageName) {
    Objects.requireNonNull(packageName, "packageName");
    checkPackage(packageName);
    return new Builder(packageName);
  }

  /**
   * The sources for {@code specs}.
   *
   * @throws IllegalArgumentException if two different specs have the same id
   */
  public GeneratedSources generate(List<OperationSpec> specs) {
    Objects.requireNonNull(specs, "specs");
    for (OperationSpec spec : specs) {
      Objects.requireNonNull(spec, "specs holds null");
    }
    return Generation.run(packageName, async, specs);
  }

  private static void checkPackage(String packageName) {
    String problem = null;
    if (packageName.isEmpty()) {
      problem = "it is empty (generated types cannot be in the unnamed package)";
    } else {
      for (String part : packageName.split("\\.", -1)) {
        if (part.isEmpty()) {
          problem = "it has an empty part";
        } else if (!part.matches("[A-Za-z_][A-Za-z0-9_]*")) {
          problem = "'" + part + "' is not an identifier of ASCII letters, digits and _";
        } else if (Names.isReservedKeyword(part)) {
          problem = "'" + part + "' is a Java keyword";
        }
        if (problem != null) {
          break;
        }
      }
    }
    if (problem != null) {
      throw new IllegalArgumentException(
          "Invalid package name '"
              + (packageName.length() > 200 ? packageName.substring(0, 200) + "..." : packageName)
              + "': "
              + problem
              + "; expected dot-separated Java identifiers, such as com.example.pets");
    }
  }

  /** Settings of a {@link JavaGenerator}. */
  public static final class Builder {
    private final String packageName;
    private boolean async;

    private Builder(String packageName) {
      this.packageName = packageName;
    }

    /**
     * Whether QUERY and MUTATION methods return {@code CompletableFuture<R>} instead of {@code R}
     * (false by default). SUBSCRIPTION methods always return {@code Flow.Publisher<T>}.
     */
    public Builder async(boolean async) {
      this.async = async;
      return this;
    }

    public JavaGenerator build() {
      return new JavaGenerator(this);
    }
  }
}
