package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.source.SourceEntry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ops login NAME}: connects to one MCP server over HTTP, authorizing first when it asks for
 * OAuth, so that later commands find the tokens kept and need no browser.
 */
@Command(
    name = "login",
    mixinStandardHelpOptions = true,
    description = {
      "Authorizes ops with an MCP server over HTTP that asks for OAuth: opens the browser at the",
      "authorization page (and prints its address, for when there is no browser), receives the",
      "redirect on a loopback port and keeps the tokens (~/.config/ops/mcp-tokens.json, mode 600).",
      "With OPS_OAUTH_HEADLESS=1 it fetches the page itself, for servers that approve at once."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  ops --mcp-url gh=https://api.example.com/mcp login gh",
      "  ops --config servers.json login linear --timeout 10m"
    })
final class LoginCommand implements Callable<Integer> {
  @ParentCommand OpsCommand root;

  @Parameters(index = "0", paramLabel = "NAME", description = "The MCP server, by its name.")
  String name;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "5m",
      converter = Durations.class,
      description = "How long the authorization may take (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Override
  public Integer call() {
    OpsConfig config = root.configuration();
    List<String> oauthServers =
        config.sources().stream().filter(LoginCommand::usesOAuth).map(SourceEntry::name).toList();
    SourceEntry entry =
        config
            .source(name)
            .orElseThrow(
                () ->
                    new Failure(
                        ExitCodes.USAGE,
                        "there is no MCP server named " + name,
                        oauthServers.isEmpty()
                            ? "name one with --mcp-url NAME=URL or in the --config file"
                            : "servers that use OAuth: " + String.join(", ", oauthServers)));
    if (!usesOAuth(entry)) {
      throw new Failure(
          ExitCodes.USAGE,
          name + " is not an MCP server over HTTP that uses OAuth",
          "its auth (a token, an API key) is given in the configuration; nothing to log in to");
    }
    Output output = root.output();
    try (SourceSet sources =
        SourceSet.create(false, new OpsConfig(List.of(entry)), root.terminal().env(), timeout)) {
      OperationRegistry registry = OperationRegistry.create();
      sources.load(registry, timeout, SourceSet.Progress.NONE);
      output
          .err()
          .println(
              name + ": authorized (" + registry.list(name).size() + " tools); tokens are kept");
      output.err().flush();
      return 0;
    }
  }

  private static boolean usesOAuth(SourceEntry entry) {
    return entry.kind().equals("mcp") && entry.settings().path("auth").has("oauth");
  }
}
