package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationSpec;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code ops describe ID}: one operation's spec, its schemas as pretty JSON. */
@Command(
    name = "describe",
    mixinStandardHelpOptions = true,
    description = "Shows one operation: type, description, access, input and output schemas.",
    footerHeading = "%nExamples:%n",
    footer = {"  ops describe demo.createNote", "  ops describe demo.clock --json"})
final class DescribeCommand implements Callable<Integer> {
  @ParentCommand OpsCommand root;

  @Parameters(index = "0", paramLabel = "ID", description = "The operation, e.g. demo.echo.")
  String id;

  @Option(names = "--json", description = "Print the whole spec as JSON (for scripts).")
  boolean json;

  @Override
  public Integer call() {
    Output output = root.output();
    try (Session session = root.session()) {
      OperationSpec spec = session.require(id);
      if (json) {
        output.pretty(spec.toJson());
        return 0;
      }
      PrintWriter out = output.out();
      out.println(
          output.bold(spec.id()) + "  " + spec.type() + "  " + output.dim("v" + spec.version()));
      if (!spec.description().isEmpty()) {
        out.println(spec.description());
      }
      var scopes = spec.accessControl().requiredScopes();
      out.println(
          "access: " + (scopes.isEmpty() ? "anyone" : "scopes " + String.join(", ", scopes)));
      out.println();
      out.println(output.bold("input schema:"));
      output.pretty(spec.inputSchema().json());
      out.println();
      out.println(
          output.bold(
              spec.type() == dev.alkdev.operations.OperationType.SUBSCRIPTION
                  ? "item schema:"
                  : "output schema:"));
      output.pretty(spec.outputSchema().json());
      out.println();
      out.println(output.dim("try: " + tryLine(spec)));
      out.flush();
      return 0;
    }
  }

  /**
   * A command that calls the operation with an input made from its schema, or one with {@code
   * --input '{...}'} to fill in when no input made from the schema is valid.
   */
  static String tryLine(OperationSpec spec) {
    String command =
        "ops "
            + (spec.type() == dev.alkdev.operations.OperationType.SUBSCRIPTION
                ? "subscribe "
                : "call ")
            + spec.id();
    return InputExample.of(spec.inputSchema())
        .map(
            example ->
                example.isObject() && example.isEmpty()
                    ? command
                    : command + " --input " + InputExample.shellQuoted(example.toString()))
        .orElse(command + " --input '{...}'");
  }
}
