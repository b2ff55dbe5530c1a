package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** End to end, in this JVM: the demo operations through every command. */
@Timeout(30)
class OpsCommandsTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void listShowsTheDemoAsAnAlignedTable() {
    CliRun run = CliRun.run("list");
    assertThat(run.code()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).matches("ID +TYPE +DESCRIPTION");
    assertThat(lines).hasSize(4);
    assertThat(lines.get(1)).startsWith("demo.clock ").contains("SUBSCRIPTION");
    assertThat(lines.get(2)).startsWith("demo.createNote").contains("MUTATION");
    assertThat(lines.get(3)).startsWith("demo.echo").contains("QUERY");
    // Aligned: TYPE starts in the same column on every line.
    int column = lines.get(0).indexOf("TYPE");
    assertThat(lines.get(3).indexOf("QUERY")).isEqualTo(column);
    assertThat(run.err()).isEmpty();
  }

  @Test
  void listJsonAndNamespaceFilter() {
    CliRun run = CliRun.run("list", "--json");
    assertThat(run.code()).isZero();
    JsonNode array = JSON.readTree(run.out());
    assertThat(array.size()).isEqualTo(3);
    assertThat(array.get(2).get("id").asString()).isEqualTo("demo.echo");

    assertThat(CliRun.run("list", "demo").out().lines()).hasSize(4);
    CliRun none = CliRun.run("list", "nothere");
    assertThat(none.code()).isZero();
    assertThat(none.out()).isEmpty();
    assertThat(none.err()).contains("no operations in namespace nothere");
  }

  @Test
  void noDemoLeavesNothingAndSaysWhatToAdd() {
    CliRun run = CliRun.run("list", "--no-demo");
    assertThat(run.code()).isZero();
    assertThat(run.err()).contains("no operations").contains("--openapi");
  }

  @Test
  void describeShowsSchemas() {
    CliRun run = CliRun.run("describe", "demo.clock");
    assertThat(run.code()).isZero();
    assertThat(run.out())
        .contains("demo.clock  SUBSCRIPTION")
        .contains("input schema:")
        .contains("\"intervalMs\"")
        .contains("ops subscribe demo.clock");
    CliRun json = CliRun.run("describe", "demo.createNote", "--json");
    JsonNode spec = JSON.readTree(json.out());
    assertThat(spec.get("type").asString()).isEqualTo("MUTATION");
    assertThat(spec.at("/inputSchema/required").toString()).contains("title").contains("body");
    assertThat(CliRun.run("describe", "demo.echo").out())
        .contains("try: ops call demo.echo --input '{\"message\":\"text\"}'");
  }

  @Test
  void callEchoPrintsTheData() {
    CliRun run = CliRun.run("call", "demo.echo", "--input", "{\"message\":\"hi\"}");
    assertThat(run.code()).isZero();
    assertThat(JSON.readTree(run.out())).isEqualTo(JSON.readTree("{\"message\":\"hi\"}"));
    assertThat(run.err()).isEmpty();
  }

  @Test
  void callWithEnvelopeAndJsonOutput() {
    CliRun run =
        CliRun.run("call", "demo.echo", "-i", "{\"message\":\"hi\"}", "--envelope", "--json");
    assertThat(run.code()).isZero();
    assertThat(run.out().lines()).hasSize(1);
    JsonNode envelope = JSON.readTree(run.out());
    assertThat(envelope.at("/data/message").asString()).isEqualTo("hi");
    assertThat(envelope.at("/meta/source").asString()).isEqualTo("local");
    assertThat(envelope.at("/meta/operationId").asString()).isEqualTo("demo.echo");
  }

  @Test
  void inputFromFileAndStdin(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("in.json");
    Files.writeString(file, "{\"message\":\"from a file\"}");
    CliRun fromFile = CliRun.run("call", "demo.echo", "--input", "@" + file);
    assertThat(JSON.readTree(fromFile.out()).get("message").asString()).isEqualTo("from a file");

    CliRun fromStdin =
        CliRun.run(Map.of(), "{\"message\":\"from stdin\"}", "call", "demo.echo", "--input", "-");
    assertThat(JSON.readTree(fromStdin.out()).get("message").asString()).isEqualTo("from stdin");

    CliRun missing = CliRun.run("call", "demo.echo", "--input", "@" + dir.resolve("nope.json"));
    assertThat(missing.code()).isEqualTo(ExitCodes.INVALID_INPUT);
    assertThat(missing.err()).contains("does not exist");
  }

  @Test
  void callTheRecordMutation() {
    CliRun run =
        CliRun.run(
            "call",
            "demo.createNote",
            "--input",
            "{\"title\":\"Milk\",\"body\":\"2 litres\",\"tags\":[\"shop\"]}");
    assertThat(run.code()).isZero();
    JsonNode note = JSON.readTree(run.out());
    assertThat(note.get("id").asString()).isEqualTo("note-1");
    assertThat(note.get("title").asString()).isEqualTo("Milk");
    assertThat(note.get("tags").get(0).asString()).isEqualTo("shop");
    assertThat(note.get("createdAt").asString()).isNotEmpty();

    CliRun noTags =
        CliRun.run("call", "demo.createNote", "--input", "{\"title\":\"A\",\"body\":\"B\"}");
    assertThat(noTags.code()).isZero();
    assertThat(JSON.readTree(noTags.out()).get("tags").size()).isZero();
  }

  @Test
  void subscribeClockWithLimit() {
    CliRun run =
        CliRun.run(
            "subscribe",
            "demo.clock",
            "--input",
            "{\"ticks\":50,\"intervalMs\":5}",
            "--limit",
            "2");
    assertThat(run.code()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(JSON.readTree(lines.get(0)).get("tick").asInt()).isEqualTo(1);
    assertThat(JSON.readTree(lines.get(1)).get("tick").asInt()).isEqualTo(2);
    assertThat(JSON.readTree(lines.get(1)).get("time").asString()).contains("T");
  }

  @Test
  void subscribeRunsToTheEndOfTheStream() {
    CliRun run = CliRun.run("subscribe", "demo.clock", "--input", "{\"intervalMs\":1}");
    assertThat(run.code()).isZero();
    // ticks defaults to 3.
    assertThat(run.out().lines()).hasSize(3);
  }

  @Test
  void subscribeTimeoutExitsWithDeadlineExceeded() {
    CliRun run =
        CliRun.run(
            "subscribe",
            "demo.clock",
            "--input",
            "{\"ticks\":1000,\"intervalMs\":50}",
            "--timeout",
            "1s");
    assertThat(run.code()).isEqualTo(ExitCodes.DEADLINE_EXCEEDED);
    assertThat(run.err()).contains("DEADLINE_EXCEEDED");
    // 20 ticks in a second at most; at least one even on a loaded machine.
    assertThat(run.out().lines().count()).isBetween(1L, 21L);
  }

  @Test
  void unknownIdSuggestsAndPointsToList() {
    CliRun run = CliRun.run("call", "demo.ecoh", "--input", "{}");
    assertThat(run.code()).isEqualTo(ExitCodes.OPERATION_NOT_FOUND);
    assertThat(run.err())
        .contains("unknown operation demo.ecoh")
        .contains("did you mean demo.echo?")
        .contains("ops list");
    CliRun noNamespace = CliRun.run("describe", "createnote");
    assertThat(noNamespace.err()).contains("did you mean demo.createNote?");
    CliRun far = CliRun.run("subscribe", "zzz.qqqqqq");
    assertThat(far.code()).isEqualTo(ExitCodes.OPERATION_NOT_FOUND);
    assertThat(far.err()).doesNotContain("did you mean").contains("ops list");
  }

  @Test
  void invalidJsonGivesThePosition() {
    CliRun run = CliRun.run("call", "demo.echo", "--input", "{\"message\": \"hi\",}");
    assertThat(run.code()).isEqualTo(ExitCodes.INVALID_INPUT);
    assertThat(run.err()).contains("invalid JSON in --input at line 1, column");
    assertThat(run.out()).isEmpty();
    CliRun trailing = CliRun.run("call", "demo.echo", "--input", "{} x");
    assertThat(trailing.code()).isEqualTo(ExitCodes.INVALID_INPUT);
  }

  @Test
  void schemaViolationsOnePerLineWithPointers() {
    CliRun run =
        CliRun.run("call", "demo.createNote", "--input", "{\"title\": 5, \"tags\": [\"a\", 7]}");
    assertThat(run.code()).isEqualTo(ExitCodes.INVALID_INPUT);
    List<String> lines = run.err().lines().toList();
    assertThat(lines.get(0)).startsWith("error: INVALID_INPUT");
    assertThat(lines).anyMatch(l -> l.startsWith("  /title: "));
    assertThat(lines).anyMatch(l -> l.startsWith("  /tags/1: "));
    assertThat(lines).anyMatch(l -> l.startsWith("  /: ") && l.contains("body"));
    // Each problem once, in one pointer style: the headline counts them instead of listing them.
    assertThat(lines.get(0))
        .isEqualTo("error: INVALID_INPUT: Invalid input of demo.createNote (3 problems)");
    assertThat(lines).filteredOn(l -> l.contains("title")).hasSize(1);

    CliRun json = CliRun.run("call", "demo.echo", "--input", "{}", "--json");
    JsonNode error = JSON.readTree(json.err()).get("error");
    assertThat(error.get("code").asString()).isEqualTo("INVALID_INPUT");
    // The error object of every surface (HTTP's body, MCP's _meta): details.errors[].instancePath.
    assertThat(error.get("retryable").asBoolean()).isFalse();
    assertThat(error.at("/details/errors/0/instancePath").asString()).isEmpty();
    assertThat(error.at("/details/errors/0/keyword").asString()).isEqualTo("required");
  }

  @Test
  void wrongCommandForTheTypeIsAUsageError() {
    CliRun call = CliRun.run("call", "demo.clock");
    assertThat(call.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(call.err()).contains("ops subscribe demo.clock");
    CliRun subscribe = CliRun.run("subscribe", "demo.echo");
    assertThat(subscribe.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(subscribe.err()).contains("ops call demo.echo");
  }

  @Test
  void aMistypedCommandOrOptionGetsTheNearestOneSuggested() {
    CliRun command = CliRun.run("cal", "demo.echo");
    assertThat(command.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(command.err()).contains("'cal'").contains("did you mean call?");
    CliRun option = CliRun.run("call", "demo.echo", "--inptu", "{}");
    assertThat(option.err()).contains("did you mean --input?");
    // A remote's flag after the command: said where it goes.
    CliRun late = CliRun.run("list", "--nats", "nats://127.0.0.1:4222");
    assertThat(late.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(late.err()).contains("--nats goes before the command: ops --nats URL list");
  }

  @Test
  void malformedJsonIsDescribedWithoutJacksonsInternals() throws Exception {
    CliRun input = CliRun.run("call", "demo.echo", "--input", "{\"message\":[");
    assertThat(input.code()).isEqualTo(ExitCodes.INVALID_INPUT);
    assertThat(input.err())
        .contains("invalid JSON in --input at line 1")
        .contains("expected close marker for Array")
        .doesNotContain("Source:")
        .doesNotContain("REDACTED");
    java.nio.file.Path config = java.nio.file.Files.createTempFile("ops-config", ".json");
    try {
      java.nio.file.Files.writeString(config, "{\"sources\": [");
      CliRun run = CliRun.run("--config", config.toString(), "list");
      assertThat(run.err()).contains("not valid JSON").doesNotContain("Source:");
    } finally {
      java.nio.file.Files.delete(config);
    }
  }

  @Test
  void aStdinPipeThatNeverEndsIsBoundedByTheTimeout() throws Exception {
    CliRun.Background run =
        CliRun.Background.start("call", "demo.echo", "--input", "-", "--timeout", "300ms");
    try {
      int code = run.exit().get(20, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(code).isEqualTo(ExitCodes.DEADLINE_EXCEEDED);
      assertThat(run.err().toString())
          .contains("the input from stdin did not end within 300ms (--timeout)");
    } finally {
      run.stop().close(); // ends the pipe, and with it the thread reading it
    }
  }

  @Test
  void badOptionsAreUsageErrors() {
    CliRun run = CliRun.run("call", "demo.echo", "--frobnicate");
    assertThat(run.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("--frobnicate").contains("ops call --help");
    assertThat(CliRun.run("call").code()).isEqualTo(ExitCodes.USAGE);
    assertThat(CliRun.run("call", "demo.echo", "--timeout", "soon").err())
        .contains("not a duration");
  }

  @Test
  void negativeOrZeroLimitsAndDurationsAreUsageErrors() {
    CliRun limit = CliRun.run("subscribe", "demo.clock", "--limit", "-1");
    assertThat(limit.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(limit.err()).contains("--limit -1 is negative");
    for (String timeout : List.of("-5s", "0s", "0")) {
      CliRun run = CliRun.run("call", "demo.echo", "--timeout", timeout, "--input", "{}");
      assertThat(run.code()).as(timeout).isEqualTo(ExitCodes.USAGE);
      assertThat(run.err()).contains("not a positive duration");
    }
    assertThat(CliRun.run("--load-timeout", "-1s", "list").code()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void aKeyGivenTwiceInTheInputIsRefusedNotLastWins() {
    CliRun run =
        CliRun.run("call", "demo.echo", "--input", "{\"message\":\"a\",\"message\":\"b\"}");
    assertThat(run.code()).isEqualTo(ExitCodes.INVALID_INPUT);
    assertThat(run.err()).contains("column 25").contains("Duplicate").contains("\"message\"");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void versionAndHelp() {
    CliRun version = CliRun.run("--version");
    assertThat(version.code()).isZero();
    assertThat(version.out()).startsWith("ops 0.").doesNotContain("${project.version}");
    CliRun help = CliRun.run("--help");
    assertThat(help.out()).contains("Exit codes:").contains("INVALID_INPUT").contains("Examples:");
    // picocli would read ${NAME} as one of its variables; the help must show it as written.
    assertThat(help.out()).contains("\"${NAME}\"").doesNotContain("\"null\"");
    assertThat(help.out().lines()).allMatch(line -> line.length() <= 80);
    for (String command : List.of("list", "describe", "call", "subscribe")) {
      CliRun commandHelp = CliRun.run(command, "--help");
      assertThat(commandHelp.code()).isZero();
      assertThat(commandHelp.out()).contains("Examples:").contains("ops " + command);
      assertThat(commandHelp.out().lines()).allMatch(line -> line.length() <= 80);
    }
    CliRun bare = CliRun.run();
    assertThat(bare.code()).isZero();
    assertThat(bare.out()).contains("Usage: ops");
  }

  @Test
  void configErrorsExitWithTheConfigCode(@TempDir Path dir) throws Exception {
    CliRun baseUrl = CliRun.run("list", "--base-url", "pets=http://localhost");
    assertThat(baseUrl.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(baseUrl.err()).contains("no OpenAPI document named pets");

    Path config = dir.resolve("ops.yaml");
    Files.writeString(
        config, "openapi:\n  gh:\n    location: x.json\n    auth: {bearer: {token: abc}}\n");
    CliRun literal = CliRun.run("list", "--config", config.toString());
    assertThat(literal.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(literal.err()).contains("literal secret").contains("tokenEnv");
    assertThat(literal.err()).doesNotContain("abc");

    CliRun fromEnv = CliRun.run(Map.of("OPS_CONFIG", config.toString()), "", "list");
    assertThat(fromEnv.code()).isEqualTo(ExitCodes.CONFIG);

    CliRun missing = CliRun.run("list", "--config", dir.resolve("none.yaml").toString());
    assertThat(missing.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(missing.err()).contains("no such file");
  }

  @Test
  void anMcpServerThatCannotStartFailsItsSource(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("ops.json");
    Files.writeString(
        config,
        "{\"mcpServers\": {\"files\": {\"command\": \"/nonexistent/mcp-server\", \"args\":"
            + " [\"-y\", \"x\"]}}}");
    CliRun run = CliRun.run("--config", config.toString(), "list");
    assertThat(run.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(run.err()).contains("files");
  }

  @Test
  void aSourceKindNoFactoryProvidesFailsItsSource(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("ops.yaml");
    Files.writeString(config, "sources:\n  remote: {kind: nats, url: 'nats://127.0.0.1:4222'}\n");
    CliRun run = CliRun.run("--config", config.toString(), "list");
    assertThat(run.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(run.err()).contains("source remote is of kind nats, which is not available");
  }

  @Test
  void anSseMcpServerIsRefusedByNameAsTheMcpModuleRefusesIt(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("ops.json");
    Files.writeString(
        config,
        "{\"mcpServers\": {\"legacy\": {\"type\": \"sse\", \"url\": \"http://127.0.0.1:1/sse\"}}}");
    CliRun run = CliRun.run("--config", config.toString(), "list");
    assertThat(run.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(run.err()).contains("mcpServers.legacy.type").contains("legacy HTTP+SSE transport");
  }

  @Test
  void jsonErrorsForScripts() {
    CliRun unknown = CliRun.run("call", "demo.ecoh", "--json");
    assertThat(unknown.code()).isEqualTo(ExitCodes.OPERATION_NOT_FOUND);
    JsonNode error = JSON.readTree(unknown.err()).get("error");
    assertThat(error.get("code").asString()).isEqualTo("OPERATION_NOT_FOUND");
    assertThat(error.get("hints").toString()).contains("did you mean demo.echo?");
    CliRun badJson = CliRun.run("call", "demo.echo", "--input", "{", "--json");
    assertThat(JSON.readTree(badJson.err()).at("/error/code").asString())
        .isEqualTo("INVALID_INPUT");
    CliRun source = CliRun.run("list", "--json", "--openapi", "p=x.yaml");
    assertThat(JSON.readTree(source.err()).at("/error/code").asString()).isEqualTo("SOURCE_FAILED");
  }

  @Test
  void theDefaultConfigFileIsReadFromHome(@TempDir Path home) throws Exception {
    Path config = home.resolve(".config/ops/config.yaml");
    Files.createDirectories(config.getParent());
    Files.writeString(config, "mcpServers: {files: {command: /nonexistent/mcp-server}}\n");
    CliRun run = CliRun.run(Map.of(), "", home, "list");
    assertThat(run.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(run.err()).contains("files");
    // --config wins over it.
    Path empty = home.resolve("empty.yaml");
    Files.writeString(empty, "");
    assertThat(CliRun.run(Map.of(), "", home, "list", "--config", empty.toString()).code())
        .isZero();
  }
}
