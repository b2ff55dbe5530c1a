/**
 * Sources of operations, as one "not mine" factory SPI: a {@link
 * dev.alkdev.operations.source.SourceFactory} turns a {@link
 * dev.alkdev.operations.source.SourceEntry} (a kind, a name and its settings as JSON) into an
 * {@link dev.alkdev.operations.source.OperationSource}, or answers {@code Optional.empty()} when
 * the entry is not its kind. Adapter modules provide factories through {@link
 * java.util.ServiceLoader} ({@code provides ... with} in their module descriptor and a {@code
 * META-INF/services} file, so they are found on the module path and on the class path); a host such
 * as the {@code ops} command asks each factory in turn, so a new kind of source is one class in its
 * adapter module.
 */
package dev.alkdev.operations.source;
