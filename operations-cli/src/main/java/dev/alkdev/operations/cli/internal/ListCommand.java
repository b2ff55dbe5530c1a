package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.discovery.RemoteNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
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
  /**
   * Who serves a remote operation: how many nodes, and their identities ("verified" when a trusted
   * key or identity proved it); "local" for the run's own operations.
   */
  static String servedBy(List<RemoteSource> remotes, String operationId) {
    List<RemoteNode> servers = new ArrayList<>();
    for (RemoteSource remote : remotes) {
      servers.addAll(remote.catalog().servers(operationId));
    }
    if (servers.isEmpty()) {
      return "local";
    }
    Map<String, Boolean> identities = new TreeMap<>();
    for (RemoteNode node : servers) {
      identities.merge(node.identity().orElse("unidentified"), node.verified(), Boolean::logicalOr);
    }
    StringBuilder text =
        new StringBuilder()
            .append(servers.size())
            .append(servers.size() == 1 ? " node: " : " nodes: ");
    String separator = "";
    for (Map.Entry<String, Boolean> identity : identities.entrySet()) {
      text.append(separator).append(identity.getKey());
      if (identity.getValue()) {
        text.append(" (verified)");
      }
      separator = ", ";
    }
    return text.toString();
  }

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
      List<RemoteSource> remotes = session.remotes();
      if (remotes.isEmpty()) {
        output.table(
            List.of("ID", "TYPE", "DESCRIPTION"),
            specs.stream().map(s -> List.of(s.id(), s.type().name(), s.description())).toList(),
            root.terminal().width());
        return 0;
      }
      output.table(
          List.of("ID", "TYPE", "SERVED BY", "DESCRIPTION"),
          specs.stream()
              .map(
                  s -> List.of(s.id(), s.type().name(), servedBy(remotes, s.id()), s.description()))
              .toList(),
          root.terminal().width());
      return 0;
    }
  }
}
