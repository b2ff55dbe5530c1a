package dev.alkdev.operations.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.source.OperationSource;
import dev.alkdev.operations.source.SourceEntry;
import dev.alkdev.operations.source.SourceFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SourceSetTest {

  /** A source whose load is whatever the test says. */
  static final class FakeSource implements OperationSource {
    final String name;
    final CompletableFuture<Void> load;
    final AtomicInteger closed = new AtomicInteger();

    FakeSource(String name, CompletableFuture<Void> load) {
      this.name = name;
      this.load = load;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String kind() {
      return "fake";
    }

    @Override
    public CompletableFuture<Void> load(OperationRegistry registry) {
      return load;
    }

    @Override
    public void close() {
      closed.incrementAndGet();
    }
  }

  @Test
  void reportsEverySourceThatFailedOrHung() throws Exception {
    FakeSource ok = new FakeSource("ok", CompletableFuture.completedFuture(null));
    FakeSource broken =
        new FakeSource(
            "broken", CompletableFuture.failedFuture(new IllegalStateException("no route")));
    FakeSource hung = new FakeSource("hung", new CompletableFuture<>());
    List<String> shown = new java.util.ArrayList<>();
    SourceSet.Progress progress =
        new SourceSet.Progress() {
          @Override
          public void show(List<OperationSource> sources, List<CompletableFuture<Void>> loads) {
            shown.add("show");
          }

          @Override
          public void clear() {
            shown.add("clear");
          }
        };
    try (OperationRegistry registry = OperationRegistry.create();
        SourceSet set = SourceSet.of(List.of(ok, broken, hung))) {
      assertThatThrownBy(() -> set.load(registry, Duration.ofMillis(300), progress))
          .isInstanceOf(SourceSet.SourceFailure.class)
          .hasMessageContaining("could not load fake source broken: no route")
          .hasMessageContaining("fake source hung did not finish loading")
          .hasMessageNotContaining("source ok");
    }
    // Closing the set closed every source, whether it loaded or not.
    assertThat(List.of(ok.closed.get(), broken.closed.get(), hung.closed.get())).containsOnly(1);
    assertThat(shown).contains("show").endsWith("clear");
    assertThat(hung.load.isCancelled()).isTrue();
  }

  @Test
  void eachEntryGoesToTheFirstFactoryThatAcceptsIt() {
    OpsConfig config =
        OpsConfig.parse(
            "openapi: {pets: {location: ./pets.yaml, auth: {bearer: {tokenEnv: PETS_TOKEN}}}}\n"
                + "mcpServers: {files: {command: npx, args: [srv]}}\n",
            "ops.yaml");
    List<String> made = new ArrayList<>();
    SourceFactory notMine = entry -> Optional.empty();
    SourceFactory openApi =
        entry -> {
          if (!entry.kind().equals("openapi")) {
            return Optional.empty();
          }
          String tokenEnv = entry.settings().at("/auth/bearer/tokenEnv").asString();
          made.add(entry.name() + " " + entry.variable(tokenEnv) + " " + entry.loadTimeout());
          return Optional.of(new FakeSource(entry.name(), CompletableFuture.completedFuture(null)));
        };
    SourceFactory mcp =
        entry -> {
          if (!entry.kind().equals("mcp")) {
            return Optional.empty();
          }
          made.add(entry.name() + " " + entry.settings().get("command").asString());
          return Optional.of(new FakeSource(entry.name(), CompletableFuture.completedFuture(null)));
        };
    try (SourceSet set =
        SourceSet.create(
            true,
            config,
            Map.of("PETS_TOKEN", "t"),
            Duration.ofSeconds(7),
            List.of(notMine, openApi, mcp))) {
      assertThat(set.sources())
          .extracting(OperationSource::name)
          .containsExactly("demo", "pets", "files");
      try (OperationRegistry registry = OperationRegistry.create()) {
        set.load(registry, Duration.ofSeconds(5), SourceSet.Progress.NONE);
        assertThat(registry.list("demo")).hasSize(3);
      }
    }
    assertThat(made).containsExactly("pets t PT7S", "files npx");
  }

  @Test
  void aKindNoFactoryAcceptsIsReportedAndNothingStaysOpen() {
    FakeSource made = new FakeSource("pets", CompletableFuture.completedFuture(null));
    SourceFactory openApi =
        entry -> entry.kind().equals("openapi") ? Optional.of(made) : Optional.empty();
    OpsConfig config =
        OpsConfig.parse(
            "openapi: {pets: ./pets.yaml}\nsources: {remote: {kind: nats, url: 'nats://h'}}\n",
            "ops.yaml");
    assertThatThrownBy(
            () ->
                SourceSet.create(false, config, Map.of(), Duration.ofSeconds(1), List.of(openApi)))
        .isInstanceOf(SourceSet.SourceFailure.class)
        .hasMessageContaining("source remote is of kind nats, which is not available in this ops");
    assertThat(made.closed.get()).isEqualTo(1);
    // An MCP entry with no MCP factory (a build without operations-mcp) says where it comes from.
    assertThatThrownBy(
            () ->
                SourceSet.create(
                    false,
                    OpsConfig.parse("mcpServers: {files: {command: x}}", "ops.yaml"),
                    Map.of(),
                    Duration.ofSeconds(1),
                    List.of()))
        .hasMessageContaining("kind mcp, which is not available")
        .hasMessageContaining("operations-mcp");
  }

  @Test
  void aFactoryThatRefusesItsEntrySaysWhich() {
    SourceFactory strict =
        entry -> {
          throw new IllegalArgumentException("location is required (a string)");
        };
    assertThatThrownBy(
            () ->
                SourceSet.create(
                    false,
                    new OpsConfig(
                        List.of(
                            SourceEntry.of(
                                "openapi", "pets", JsonInput.MAPPER.createObjectNode()))),
                    Map.of(),
                    Duration.ofSeconds(1),
                    List.of(strict)))
        .isInstanceOf(SourceSet.SourceFailure.class)
        .hasMessage("could not create openapi source pets: location is required (a string)");
  }

  @Test
  void theAdaptersFactoriesAreFoundWithServiceLoader() {
    assertThat(SourceSet.factories())
        .extracting(factory -> factory.getClass().getSimpleName())
        .contains("OpenApiSourceFactory", "McpSourceFactory");
  }

  @Test
  void progressLineRewritesOneLineAndClearsIt() {
    java.io.StringWriter text = new java.io.StringWriter();
    SourceSet.Progress progress = SourceSet.Progress.line(new java.io.PrintWriter(text));
    FakeSource done = new FakeSource("a", CompletableFuture.completedFuture(null));
    FakeSource pending = new FakeSource("b", new CompletableFuture<>());
    progress.show(List.of(done, pending), List.of(done.load, pending.load));
    progress.clear();
    assertThat(text.toString())
        .startsWith("\r\u001b[2Kloading sources: a ✓ b …")
        .endsWith("\r\u001b[2K")
        .doesNotContain("\n");
  }
}
