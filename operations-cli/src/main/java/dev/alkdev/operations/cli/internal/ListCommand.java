package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationSpec;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ArrayNode;

/** {@code ops list [NAMESPACE]}: every operation as a table, or as JSON specs. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "Lists the operations: id, type (QUERY, MUTATION, SUBSCRIPTION), description.",
    footerHeading = "%nExamples:%n",
    footer = {
      "  ops list                  every operation",
      "  ops list demo             only namespace demo",
      "  ops list --json | jq -r '.[].id'"
    })
final class ListCommand implements Callable<Integer> {
  @ParentCommand OpsCommand root;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "NAMESPACE",
      description = "Only the operations of this namespace.")
  String namespace;

  @Option(names = "--json", description = "Print the specs as a JSON array (for scripts).")
  boolean json;

  @Override
  public Integer call() {
    Output output = root.output();
    try (Session session = root.session()) {
      List<OperationSpec> specs =
          Optional.ofNullable(namespace)
              .map(ns -> session.registry().list(ns))
              .orElseGet(() -> session.registry().list());
      if (json) {
        ArrayNode array = JsonInput.MAPPER.createArrayNode();
        specs.forEach(s -> array.add(s.toJson()));
        output.pretty(array);
        return 0;
      }
      if (specs.isEmpty()) {
        output
            .err()
            .println(
                namespace == null
                    ? "no operations; drop --no-demo, or add --openapi, --mcp-stdio or a --config"
                    : "no operations in namespace "
                        + namespace
                        + "; run `ops list` to see them all");
        output.err().flush();
        return 0;
      }
      output.table(
          List.of("ID", "TYPE", "DESCRIPTION"),
          specs.stream().map(s -> List.of(s.id(), s.type().name(), s.description())).toList(),
          root.terminal().width());
      return 0;
    }
  }
}
