/**
 * The {@code ops} command. Exported: the entry point ({@code Ops}, {@code ExitCodes}) and the
 * configuration ({@code OpsConfig}, {@code ConfigException}). The commands themselves live in
 * {@code internal}, open to picocli (which injects their options) and to core (which reads the
 * demo's annotated operations).
 *
 * <p>Sources other than the demo come from the {@link dev.alkdev.operations.source.SourceFactory}
 * implementations the adapter modules provide ({@code operations-openapi}, {@code operations-mcp});
 * ops does not compile against them, it finds them with {@link java.util.ServiceLoader}. The remote
 * transports behind {@code --nats}, {@code --redis} and {@code --ws} come the same way, as {@link
 * dev.alkdev.operations.pubsub.PubSubFactory} implementations.
 */
module dev.alkdev.operations.cli {
  requires dev.alkdev.operations.remote;
  requires dev.alkdev.operations.transport.websocket; // ops serve --ws: the hub
  requires dev.alkdev.operations.mcpserver;
  requires dev.alkdev.operations.http;
  requires dev.alkdev.operations.metrics; // ops serve --http: /metrics
  requires dev.alkdev.operations.codegen; // ops generate java
  requires micrometer.registry.prometheus;
  requires info.picocli;
  requires org.slf4j;
  requires tools.jackson.dataformat.yaml;

  exports dev.alkdev.operations.cli;
  exports dev.alkdev.operations.cli.config;

  opens dev.alkdev.operations.cli.internal to
      info.picocli,
      dev.alkdev.operations.core,
      tools.jackson.databind;

  uses dev.alkdev.operations.source.SourceFactory;
  uses dev.alkdev.operations.pubsub.PubSubFactory;
}
