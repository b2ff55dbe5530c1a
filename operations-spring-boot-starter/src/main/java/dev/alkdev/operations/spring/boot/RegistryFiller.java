package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.OperationRegistry;

/**
 * Something more that registers operations at start-up (the Spring AI tool importer): {@link
 * OperationsLoader} runs every such bean, in {@code @Order}, after the annotated beans and
 * providers and before the property sources, so the order of registration, and which of two
 * clashing ids wins, is always the same.
 */
interface RegistryFiller {
  void fill(OperationRegistry registry);
}
