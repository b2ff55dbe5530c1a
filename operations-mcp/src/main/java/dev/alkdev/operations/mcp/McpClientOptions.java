package dev.alkdev.operations.mcp;

import dev.alkdev.operations.schema.SchemaOptions;
import java.util.Objects;
import java.util.Optional;

/**
 * What a client does besides connecting: listeners for tool changes and progress, the options tool
 * schemas are imported with, and who answers a server's questions during a call.
 *
 * @param toolChangeListener told about added, removed and changed tools
 * @param progressListener told about progress of tool calls; when set, every call sends a {@code
 *     progressToken}
 * @param schemaOptions limits and options for importing tool schemas
 * @param maxToolPages the most {@code tools/list} pages followed in one listing
 * @param inputHandler answers what a server asks for while a call runs (MCP 2026-07-28)
 * @param telemetry OpenTelemetry's MCP spans and metrics for tool calls; none when empty
 */
public record McpClientOptions(
    Optional<ToolChangeListener> toolChangeListener,
    Optional<McpProgressListener> progressListener,
    SchemaOptions schemaOptions,
    int maxToolPages,
    Optional<McpInputHandler> inputHandler,
    Optional<McpClientTelemetry> telemetry) {

  public McpClientOptions {
    Objects.requireNonNull(inputHandler, "inputHandler");
    Objects.requireNonNull(telemetry, "telemetry");
    Objects.requireNonNull(toolChangeListener, "toolChangeListener");
    Objects.requireNonNull(progressListener, "progressListener");
    Objects.requireNonNull(schemaOptions, "schemaOptions");
    if (maxToolPages < 1) {
      throw new IllegalArgumentException("maxToolPages must be at least 1, was " + maxToolPages);
    }
  }

  public static McpClientOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds {@link McpClientOptions}. */
  public static final class Builder {
    private ToolChangeListener toolChangeListener;
    private McpProgressListener progressListener;
    private SchemaOptions schemaOptions = SchemaOptions.defaults();
    private int maxToolPages = 100;
    private McpInputHandler inputHandler;
    private McpClientTelemetry telemetry;

    private Builder() {}

    public Builder toolChangeListener(ToolChangeListener listener) {
      this.toolChangeListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    public Builder progressListener(McpProgressListener listener) {
      this.progressListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    public Builder schemaOptions(SchemaOptions options) {
      this.schemaOptions = Objects.requireNonNull(options, "options");
      return this;
    }

    public Builder maxToolPages(int pages) {
      this.maxToolPages = pages;
      return this;
    }

    /** Answers what a server asks for while a call runs; without one, such a call fails. */
    public Builder inputHandler(McpInputHandler handler) {
      this.inputHandler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** OpenTelemetry's MCP spans and metrics for every tool call ({@link McpClientTelemetry}). */
    public Builder telemetry(McpClientTelemetry telemetry) {
      this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
      return this;
    }

    public McpClientOptions build() {
      return new McpClientOptions(
          Optional.ofNullable(toolChangeListener),
          Optional.ofNullable(progressListener),
          schemaOptions,
          maxToolPages,
          Optional.ofNullable(inputHandler),
          Optional.ofNullable(telemetry));
    }
  }
}
