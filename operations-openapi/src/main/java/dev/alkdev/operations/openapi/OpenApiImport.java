package dev.alkdev.operations.openapi;

import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationRegistry;
import java.util.List;

/**
 * What an import produced: one operation per path and method, in document order, and the warnings
 * (id collisions, skipped parts) also logged at WARN.
 */
public record OpenApiImport(List<OperationDefinition> operations, List<String> warnings) {
  public OpenApiImport {
    operations = List.copyOf(operations);
    warnings = List.copyOf(warnings);
  }

  /** Registers every operation (see {@link OperationRegistry#registerAll}). */
  public void registerAll(OperationRegistry registry) {
    registry.registerAll(operations);
  }
}
