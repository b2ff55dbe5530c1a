package dev.alkdev.operations.scan;

import dev.alkdev.operations.OperationDefinition;
import java.util.List;

/**
 * A source of operations found through {@link java.util.ServiceLoader}: list the implementation in
 * {@code META-INF/services/dev.alkdev.operations.scan.OperationProvider} (or {@code provides} it in
 * {@code module-info.java}); {@link OperationScanner#scanProviders} collects them all.
 */
public interface OperationProvider {
  List<OperationDefinition> operations();
}
