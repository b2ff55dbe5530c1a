package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.pubsub.PubSubFactory;
import dev.alkdev.operations.pubsub.PubSubFactory.BrokerGrant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ops permissions nats|redis --role ROLE ...}: the broker permissions of a caller, a serving
 * node or an observer of some operations, as a nats-server user entry or a Redis {@code ACL
 * SETUSER} line, so that the broker refuses a rogue server (docs/security.md).
 */
@Command(
    name = "permissions",
    mixinStandardHelpOptions = true,
    description = {
      "Prints what a broker user may do for one role of the call protocol: a user entry for",
      "nats-server's authorization { users = [...] }, or a Redis ACL SETUSER line (also an aclfile",
      "line with 'user' for 'ACL SETUSER'). With them the broker itself refuses a process that",
      "holds a caller's credentials and tries to serve."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  BILLING_PW=... ops permissions nats --role server --operations 'billing.*' \\",
      "      --node-id billing-1 --user billing --password-env BILLING_PW",
      "  APP_PW=... ops permissions redis --role caller --operations billing.charge,demo.echo \\",
      "      --user app --password-env APP_PW",
      "  OBS_PW=... ops permissions redis --role observer --user ops-admin --password-env OBS_PW"
    })
final class PermissionsCommand implements Callable<Integer> {
  @ParentCommand OpsCommand root;

  @Parameters(index = "0", paramLabel = "BROKER", description = "nats or redis.")
  String broker;

  @Option(
      names = "--role",
      paramLabel = "ROLE",
      required = true,
      split = ",",
      description =
          "caller (calls the operations), server (serves them; add caller if its handlers call"
              + " others), observer (lists nodes and their statistics). Comma-separated to"
              + " combine.")
  List<String> roles = new ArrayList<>();

  @Option(
      names = "--operations",
      paramLabel = "PATTERNS",
      split = ",",
      description =
          "Operation ids, namespace.* or * (default: *), comma-separated: what a caller may call"
              + " and a server may serve.")
  List<String> operations = new ArrayList<>(List.of("*"));

  @Option(
      names = "--node-id",
      paramLabel = "ID",
      description =
          "A server's node id (ops serve --node-id): its node topics only, not any node's.")
  String nodeId;

  @Option(
      names = "--private-token",
      paramLabel = "TOKEN",
      description =
          "The user's private token (OPS_PRIVATE_TOKEN of its ops, privateToken(...) of its"
              + " transport options): it may then read only its own inboxes.")
  String privateToken;

  @Option(names = "--user", paramLabel = "NAME", required = true, description = "The user name.")
  String user;

  @Option(
      names = "--password-env",
      paramLabel = "VAR",
      required = true,
      description =
          "The environment variable holding the user's password (never a flag: it would be in the"
              + " shell's history). Redis lines carry its SHA-256 only.")
  String passwordEnv;

  @Override
  public Integer call() {
    String password = root.terminal().env().get(passwordEnv);
    if (password == null || password.isEmpty()) {
      throw new Failure(
          ExitCodes.USAGE,
          "--password-env " + passwordEnv + ": the variable is not set",
          "set it to the password the broker user is to have");
    }
    Set<BrokerGrant.Role> granted = EnumSet.noneOf(BrokerGrant.Role.class);
    roles.forEach(role -> granted.add(role(role)));
    BrokerGrant grant =
        new BrokerGrant(
            broker.toLowerCase(Locale.ROOT),
            granted,
            operations,
            Optional.ofNullable(nodeId),
            Optional.ofNullable(privateToken),
            user,
            password);
    String printed = null;
    for (PubSubFactory factory : RemoteTransports.factories()) {
      try {
        Optional<String> config = factory.brokerUser(grant);
        if (config.isPresent()) {
          printed = config.get();
          break;
        }
      } catch (IllegalArgumentException e) {
        throw new Failure(ExitCodes.USAGE, "permissions: " + e.getMessage());
      }
    }
    if (printed == null) {
      throw new Failure(
          ExitCodes.USAGE,
          "permissions " + broker + ": not a broker ops can configure",
          "nats or redis (the WebSocket hub decides by itself: see docs/security.md)");
    }
    Output output = root.output();
    output.out().println(printed);
    output.out().flush();
    return ExitCodes.OK;
  }

  private static BrokerGrant.Role role(String role) {
    try {
      return BrokerGrant.Role.valueOf(role.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new Failure(
          ExitCodes.USAGE, "--role " + role + ": not a role", "caller, server or observer");
    }
  }
}
