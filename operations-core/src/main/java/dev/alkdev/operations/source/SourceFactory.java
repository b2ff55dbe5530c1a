package dev.alkdev.operations.source;

import java.util.Optional;

/**
 * Makes sources of one kind (or a few). A host asks every factory it has, in turn, and uses the
 * first that answers; a factory answers {@code Optional.empty()} for an entry that is not its kind
 * ("not mine"), and never throws for one.
 *
 * <p>Provide one with {@link java.util.ServiceLoader}: {@code provides
 * dev.alkdev.operations.source.SourceFactory with ...} in the module descriptor and the class name
 * in {@code META-INF/services/dev.alkdev.operations.source.SourceFactory}, so the factory is found
 * on the module path and on the class path (the {@code ops} jar is shaded). The class needs a
 * public no-argument constructor; it may live in a package the module does not export.
 */
public interface SourceFactory {

  /**
   * A source for {@code entry}, not loaded yet; empty when the entry's {@link SourceEntry#kind()}
   * is not one this factory makes.
   *
   * <p>Reads and checks the settings here, so a wrong entry fails before anything is started;
   * fetching, connecting and starting processes belong in {@link OperationSource#load}.
   *
   * @throws IllegalArgumentException when the entry is this factory's kind but its settings are
   *     wrong: the message names the setting and says what was expected
   */
  Optional<OperationSource> create(SourceEntry entry);
}
