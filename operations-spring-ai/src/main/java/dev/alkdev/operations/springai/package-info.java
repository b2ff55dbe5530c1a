/**
 * Operations and Spring AI tools, both ways: {@link dev.alkdev.operations.springai.OperationTools}
 * offers a registry's operations to a chat model as Spring AI {@code ToolCallback}s, and {@link
 * dev.alkdev.operations.springai.SpringAiOperations} registers Spring AI tools (callbacks,
 * providers, {@code @Tool} objects) as operations.
 */
package dev.alkdev.operations.springai;
