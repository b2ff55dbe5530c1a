package dev.alkdev.operations.scan;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationHandler;
import dev.alkdev.operations.OperationSpec;
import java.util.Arrays;
import java.util.List;

/**
 * The {@link OperationProvider}s listed in the test resources' {@code META-INF/services}, in that
 * order; {@code OperationScannerTest} checks what {@code scanProviders} makes of them.
 */
public final class TestProviders {
  private TestProviders() {}

  static OperationDefinition definition(String id, OperationHandler handler) {
    String[] parts = OperationSpec.splitId(id);
    return new OperationDefinition(
        OperationSpec.builder(parts[0], parts[1]).build(), Handler.blocking(handler));
  }

  /** Two operations, listed out of order. */
  public static final class Good implements OperationProvider {
    @Override
    public List<OperationDefinition> operations() {
      return List.of(
          definition("provided.second", (in, ctx) -> "second"),
          definition("provided.first", (in, ctx) -> "first"));
    }
  }

  public static final class Throwing implements OperationProvider {
    @Override
    public List<OperationDefinition> operations() {
      throw new IllegalStateException("the provider's backend is down");
    }
  }

  /** Repeats an id of {@link Good} (dropped) and offers one of its own (kept). */
  public static final class Repeating implements OperationProvider {
    @Override
    public List<OperationDefinition> operations() {
      return List.of(
          definition("provided.first", (in, ctx) -> "impostor"),
          definition("repeating.own", (in, ctx) -> "own"));
    }
  }

  /** ServiceLoader cannot make one. */
  public static final class NoPublicConstructor implements OperationProvider {
    private NoPublicConstructor() {}

    @Override
    public List<OperationDefinition> operations() {
      return List.of();
    }
  }

  /** A null entry and a repeat of its own id, around a good one. */
  public static final class Sloppy implements OperationProvider {
    @Override
    public List<OperationDefinition> operations() {
      return Arrays.asList(
          definition("sloppy.kept", (in, ctx) -> "kept"),
          null,
          definition("sloppy.kept", (in, ctx) -> "again"));
    }
  }
}
