package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.discovery.NodeStats;
import dev.alkdev.operations.discovery.RemoteNode;
import dev.alkdev.operations.serving.OperationStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code ops --nats URL stats}: every node's statistics per operation ({@code node.stats}), as a
 * table or as JSON. Statistics are the serving nodes': without a remote transport there is nothing
 * to ask, and the command says so.
 */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    description = {
      "Shows every serving node's statistics per operation: calls, errors, calls in flight,"
          + " p50/p99/average latency, and the error codes seen, since the node started.",
      "Asks the nodes on --nats, --redis or --ws (given before the command). A node reports"
          + " only the operations the asker may call; one that does not answer within --timeout"
          + " is listed as silent (exit 10)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  ops --nats nats://127.0.0.1:4222 stats",
      "  ops --redis redis://127.0.0.1:6379 stats --node 3f2a9c0e5b7d41e8a6c2f0d9b8e7a615",
      "  ops --ws ws://127.0.0.1:8081/ws stats --json | jq '.[].operations[].calls'"
    })
final class StatsCommand implements Callable<Integer> {
  @ParentCommand OpsCommand root;

  @Option(names = "--json", description = "Print the nodes' statistics as a JSON array.")
  boolean json;

  @Option(names = "--node", paramLabel = "ID", description = "Ask only this node.")
  String node;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "5s",
      converter = Durations.class,
      description = "How long to wait for the nodes' answers (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Override
  public Integer call() {
    if (root.remotes().isEmpty()) {
      throw new Failure(
          ExitCodes.USAGE,
          "ops stats asks serving nodes, and no transport was given",
          "add --nats URL, --redis URL or --ws URL before the command:"
              + " `ops --nats nats://127.0.0.1:4222 stats`");
    }
    Output output = root.output();
    try (Session session = root.session()) {
      List<Row> rows = new ArrayList<>();
      for (RemoteSource remote : session.remotes()) {
        for (NodeStats stats : ask(remote)) {
          rows.add(new Row(remote, stats));
        }
      }
      if (rows.isEmpty()) {
        throw new Failure(
            ExitCodes.NO_RESPONDERS,
            node != null ? "node " + node + " did not answer" : "no serving node answered",
            "start one with `ops serve --nats URL` (or --redis, --connect)");
      }
      if (json) {
        output.pretty(toJson(rows));
      } else {
        table(output, rows);
      }
      long silent = rows.stream().filter(row -> !row.stats().answered()).count();
      if (silent > 0) {
        output
            .err()
            .println(
                silent
                    + (silent == 1 ? " node" : " nodes")
                    + " did not answer within "
                    + timeout.toMillis()
                    + "ms");
        output.err().flush();
        return ExitCodes.UNAVAILABLE;
      }
      return ExitCodes.OK;
    }
  }

  private record Row(RemoteSource remote, NodeStats stats) {}

  private List<NodeStats> ask(RemoteSource remote) {
    try {
      if (node != null) {
        return List.of(
            remote
                .catalog()
                .stats(node, Identity.anonymous(), timeout)
                .get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS));
      }
      return remote.catalog().stats(timeout).get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (IllegalArgumentException e) {
      throw new Failure(ExitCodes.USAGE, "--node " + node + ": " + e.getMessage());
    } catch (ExecutionException e) {
      throw CallError.from(
          e, cause -> CallError.of(ErrorCode.UNAVAILABLE, "could not ask " + remote.name(), cause));
    } catch (TimeoutException e) {
      throw new Failure(ExitCodes.UNAVAILABLE, remote.name() + " did not answer in time");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.CANCELLED, "interrupted");
    }
  }

  private void table(Output output, List<Row> rows) {
    boolean several = rows.stream().map(Row::remote).distinct().count() > 1;
    List<List<String>> lines = new ArrayList<>();
    for (Row row : rows) {
      NodeStats stats = row.stats();
      String nodeName =
          (several ? row.remote().remote().kind() + " " : "")
              + stats.nodeId()
              + identity(row)
              + (stats.draining() ? " (draining)" : "")
              + (stats.saturated() ? " (saturated)" : "");
      if (!stats.answered()) {
        lines.add(List.of(nodeName, "(no answer)", "", "", "", "", "", "", ""));
        continue;
      }
      if (stats.operations().isEmpty()) {
        lines.add(List.of(nodeName, "(no calls yet)", "", "", "", "", "", "", ""));
      }
      for (OperationStats op : stats.operations()) {
        OperationStats.Latency latency = op.latency();
        boolean measured = latency.count() > 0;
        lines.add(
            List.of(
                nodeName,
                op.operationId(),
                Long.toString(op.calls()),
                Long.toString(op.errors()),
                Long.toString(op.inFlight()),
                measured ? micros(latency.p50Micros()) : "-",
                measured ? micros(latency.p99Micros()) : "-",
                measured ? micros(latency.averageMicros()) : "-",
                codes(op.errorsByCode())));
      }
      if (stats.omitted() > 0) {
        lines.add(
            List.of(
                nodeName,
                "(" + stats.omitted() + " more, least called)",
                "",
                "",
                "",
                "",
                "",
                "",
                ""));
      }
    }
    output.table(
        List.of("NODE", "OPERATION", "CALLS", "ERRORS", "IN FLIGHT", "P50", "P99", "AVG", "CODES"),
        lines,
        root.terminal().width());
  }

  /** " as NAME" (with " (verified)" when proven) when the node's identity is known. */
  private static String identity(Row row) {
    for (RemoteNode node : row.remote().catalog().nodes()) {
      if (node.nodeId().equals(row.stats().nodeId()) && node.identity().isPresent()) {
        return " as " + node.identity().get() + (node.verified() ? " (verified)" : "");
      }
    }
    return "";
  }

  /** Microseconds as people read them: 840us, 12.5ms, 3.20s. */
  static String micros(long micros) {
    if (micros < 1_000) {
      return micros + "us";
    }
    if (micros < 1_000_000) {
      return String.format(Locale.ROOT, "%.1fms", micros / 1_000.0);
    }
    return String.format(Locale.ROOT, "%.2fs", micros / 1_000_000.0);
  }

  private static String codes(Map<ErrorCode, Long> byCode) {
    StringBuilder text = new StringBuilder();
    byCode.entrySet().stream()
        .sorted(Map.Entry.<ErrorCode, Long>comparingByValue().reversed())
        .forEach(
            e ->
                text.append(text.length() == 0 ? "" : " ")
                    .append(e.getKey().name())
                    .append('=')
                    .append(e.getValue()));
    return text.toString();
  }

  private static ArrayNode toJson(List<Row> rows) {
    ArrayNode array = JsonInput.MAPPER.createArrayNode();
    for (Row row : rows) {
      NodeStats stats = row.stats();
      ObjectNode node = array.addObject();
      node.put("transport", row.remote().remote().kind());
      node.put("url", row.remote().name());
      node.put("nodeId", stats.nodeId());
      node.put("answered", stats.answered());
      if (!stats.answered()) {
        continue;
      }
      node.put("startedAt", stats.startedAt().map(Object::toString).orElse(""));
      node.put("inFlight", stats.inFlight());
      node.put("draining", stats.draining());
      node.put("saturated", stats.saturated());
      node.put("omitted", stats.omitted());
      ArrayNode operations = node.putArray("operations");
      for (OperationStats op : stats.operations()) {
        ObjectNode json = operations.addObject();
        json.put("id", op.operationId());
        json.put("calls", op.calls());
        json.put("errors", op.errors());
        ObjectNode byCode = json.putObject("errorsByCode");
        op.errorsByCode().forEach((code, n) -> byCode.put(code.name(), n));
        json.put("inFlight", op.inFlight());
        OperationStats.Latency latency = op.latency();
        ObjectNode micros = json.putObject("latencyUs");
        micros.put("count", latency.count());
        micros.put("avg", latency.averageMicros());
        micros.put("p50", latency.p50Micros());
        micros.put("p90", latency.p90Micros());
        micros.put("p99", latency.p99Micros());
        micros.put("max", latency.maxMicros());
      }
    }
    return array;
  }
}
