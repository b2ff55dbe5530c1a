package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Progress;
import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/** {@code ops call ID --input JSON}: runs a QUERY or MUTATION and prints its data. */
@Command(
    name = "call",
    mixinStandardHelpOptions = true,
    description = {
      "Calls a QUERY or MUTATION and prints its result as pretty JSON.",
      "A call that fails prints what went wrong on stderr (each invalid field as a JSON pointer"
          + " and a message) and exits with the code of its error (see ops --help)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  ops call demo.echo --input '{\"message\":\"hi\"}'",
      "  ops call demo.createNote --input '{\"title\":\"Milk\",\"body\":\"2 l\"}'",
      "  ops call demo.createNote --input @note.json --envelope",
      "  echo '{\"message\":\"from stdin\"}' | ops call demo.echo --input -"
    })
final class CallCommand implements Callable<Integer> {
  @ParentCommand OpsCommand root;

  @Parameters(index = "0", paramLabel = "ID", description = "The operation, e.g. demo.echo.")
  String id;

  @Option(
      names = {"-i", "--input"},
      paramLabel = "JSON|@FILE|-",
      description =
          "The input: JSON text, @FILE to read a file, - to read stdin (default: {} for an"
              + " operation whose input is an object, else null).")
  String input;

  @Option(
      names = "--envelope",
      description = "Print the whole response envelope (data and meta), not just the data.")
  boolean envelope;

  @Option(names = "--json", description = "One-line JSON output, and errors as JSON on stderr.")
  boolean json;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = Durations.class,
      description = "Give up after this long (default: ${DEFAULT-VALUE}), exit code 7.")
  Duration timeout;

  @Override
  public Integer call() {
    Output output = root.output();
    try (Session session = root.session()) {
      OperationSpec spec = session.require(id);
      if (spec.type() == OperationType.SUBSCRIPTION) {
        throw new Failure(
            ExitCodes.USAGE,
            id + " is a SUBSCRIPTION, it streams",
            "run `ops subscribe " + id + "` instead");
      }
      JsonNode in =
          input == null
              ? spec.noInput()
              : JsonInput.read(input, root.terminal().in(), java.util.Optional.of(timeout));
      OperationContext.Builder contextBuilder = OperationContext.builder().timeout(timeout);
      if (!json) {
        // A long call's progress (an MCP tool's notifications/progress), as it comes, on stderr.
        contextBuilder.attribute(
            Progress.LISTENER,
            progress -> {
              output.err().println(output.dim("progress " + progress));
              output.err().flush();
            });
      }
      OperationContext context = contextBuilder.build();
      // Ctrl-C or SIGTERM: the call is cancelled (an MCP server hears notifications/cancelled, an
      // HTTP request is aborted) before the sources close.
      session.onInterrupt(
          () -> {
            context
                .cancellation()
                .cancel(
                    CallError.of(ErrorCode.CANCELLED, "ops was interrupted (Ctrl-C or SIGTERM)"));
            output.err().println();
            output.err().println("interrupted; the call to " + id + " was cancelled");
            output.err().flush();
          });
      ResponseEnvelope<JsonNode> result;
      try {
        // The context's deadline ends the call; the extra second only guards against a handler
        // that ignores it.
        result =
            session
                .registry()
                .execute(id, in, context)
                .get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw CallError.from(
            e, cause -> CallError.of(ErrorCode.EXECUTION_ERROR, String.valueOf(cause), cause));
      } catch (TimeoutException e) {
        CallError late =
            CallError.of(
                ErrorCode.DEADLINE_EXCEEDED,
                id + " did not answer within " + timeout.toMillis() + "ms");
        context.cancellation().cancel(late);
        throw late;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw CallError.of(ErrorCode.CANCELLED, "interrupted");
      }
      JsonNode shown =
          envelope
              ? Envelopes.toJson(result)
              : result.data() == null ? NullNode.getInstance() : result.data();
      java.util.Optional<String> text =
          envelope || json ? java.util.Optional.empty() : text(result);
      if (json) {
        output.line(shown);
      } else if (text.isPresent()) {
        output.out().println(text.get());
        output.out().flush();
      } else {
        output.pretty(shown);
      }
      if (result.meta() instanceof McpResponseMeta mcp && mcp.isError()) {
        // The tool ran and said it failed: its words on stderr, and a code of its own.
        output.error(id + " reported an error: " + errorText(mcp));
        return ExitCodes.TOOL_ERROR;
      }
      return ExitCodes.OK;
    }
  }

  /**
   * What a person reads of an MCP tool's result: its text, when the tool answered with text blocks
   * only and no structured content ({@code [{"type":"text","text":"..."}]} as JSON says less).
   * Structured content, other blocks and every other source print as JSON.
   */
  static java.util.Optional<String> text(ResponseEnvelope<JsonNode> result) {
    if (!(result.meta() instanceof McpResponseMeta mcp)
        || mcp.structuredContent().isPresent()
        || mcp.content().isEmpty()
        || !mcp.content().stream().allMatch(McpContentBlock.Text.class::isInstance)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        mcp.content().stream()
            .map(block -> ((McpContentBlock.Text) block).text())
            .collect(java.util.stream.Collectors.joining("\n")));
  }

  /** The text blocks of an error result, joined; what the tool said went wrong. */
  private static String errorText(McpResponseMeta meta) {
    String text =
        meta.content().stream()
            .filter(McpContentBlock.Text.class::isInstance)
            .map(block -> ((McpContentBlock.Text) block).text())
            .collect(java.util.stream.Collectors.joining("\n"));
    return text.isBlank() ? "(no text in its content)" : text;
  }
}
