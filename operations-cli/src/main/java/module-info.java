/**
 * The {@code ops} command. Exported: the entry point ({@code Ops}, {@code ExitCodes}), the source
 * SPI ({@code OperationSource}, {@code OpenApiSourceFactory}, {@code McpSourceFactory}) and the
 * configuration records. The commands themselves live in {@code internal}, open to picocli (which
 * injects their options) and to core (which reads the demo's annotated operations).
 */
module dev.alkdev.operations.cli {
  requires dev.alkdev.operations.core;
  requires info.picocli;
  requires org.slf4j;
  requires tools.jackson.dataformat.yaml;
  requires dev.alkdev.operations.openapi;
  requires dev.alkdev.operations.mcp;

  exports dev.alkdev.operations.cli;
  exports dev.alkdev.operations.cli.config;

  opens dev.alkdev.operations.cli.internal to
      info.picocli,
      dev.alkdev.operations.core,
      tools.jackson.databind;

  uses dev.alkdev.operations.cli.OpenApiSourceFactory;
  uses dev.alkdev.operations.cli.McpSourceFactory;

  provides dev.alkdev.operations.cli.OpenApiSourceFactory with
      dev.alkdev.operations.cli.internal.OpenApiSources;
  provides dev.alkdev.operations.cli.McpSourceFactory with
      dev.alkdev.operations.cli.internal.McpSources;
}
