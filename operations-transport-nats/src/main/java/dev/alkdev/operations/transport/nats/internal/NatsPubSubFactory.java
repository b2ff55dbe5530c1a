package dev.alkdev.operations.transport.nats.internal;

import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.PubSubFactory;
import dev.alkdev.operations.transport.nats.NatsOptions;
import dev.alkdev.operations.transport.nats.NatsPermissions;
import dev.alkdev.operations.transport.nats.NatsPubSub;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code nats} kind for hosts such as {@code ops --nats URL}: one URL or several separated by
 * commas ({@code nats://}, {@code tls://}; {@code user:password@} or {@code token@} in a URL as
 * jnats reads them), and credentials from the environment, so none is written on a command line:
 * {@code NATS_CREDS} (a credentials file), {@code NATS_NKEY} (a file holding an NKey seed), {@code
 * NATS_TOKEN}, or {@code NATS_USER} with {@code NATS_PASSWORD}. {@code OPS_PRIVATE_TOKEN}, when
 * set, is the connection's private token ({@link NatsOptions.Builder#privateToken}): its inboxes
 * and receiver probes are then the user's own, for a user whose permissions are {@link
 * NatsPermissions#privateTo privateTo} the same token.
 *
 * <p>{@link #brokerUser} writes the permissions of a grant's roles, {@link
 * NatsPermissions#privateTo private to} the grant's private token when it has one.
 */
public final class NatsPubSubFactory implements PubSubFactory {
  @Override
  public Optional<PubSub> connect(Target target) {
    if (!target.kind().equals("nats")) {
      return Optional.empty();
    }
    NatsOptions.Builder options =
        NatsOptions.builder(urls(target.url())).connectTimeout(target.connectTimeout());
    List<String> given = new ArrayList<>();
    target
        .variable("NATS_CREDS")
        .ifPresent(
            file -> {
              given.add("NATS_CREDS");
              options.credentialsFile(existing(file, "NATS_CREDS"));
            });
    target
        .variable("NATS_NKEY")
        .ifPresent(
            file -> {
              given.add("NATS_NKEY");
              options.nkeySeed(seed(existing(file, "NATS_NKEY")));
            });
    target
        .variable("NATS_TOKEN")
        .ifPresent(
            token -> {
              given.add("NATS_TOKEN");
              options.token(token.toCharArray());
            });
    Optional<String> user = target.variable("NATS_USER");
    Optional<String> password = target.variable("NATS_PASSWORD");
    if (user.isPresent() != password.isPresent()) {
      throw new IllegalArgumentException(
          "NATS_USER and NATS_PASSWORD go together: set both, or neither");
    }
    if (user.isPresent()) {
      given.add("NATS_USER");
      options.userPassword(user.get(), password.get().toCharArray());
    }
    if (given.size() > 1) {
      throw new IllegalArgumentException(
          "Give NATS credentials of one kind only; the environment sets "
              + String.join(", ", given));
    }
    target.privateToken().ifPresent(options::privateToken);
    return Optional.of(NatsPubSub.connect(options.build()));
  }

  @Override
  public Optional<String> brokerUser(BrokerGrant grant) {
    if (!grant.kind().equals("nats")) {
      return Optional.empty();
    }
    NatsPermissions all =
        grant.combine(
            role ->
                switch (role) {
                  case CALLER -> NatsPermissions.caller(grant.operations());
                  case SERVER -> NatsPermissions.server(grant.operations(), grant.nodeId());
                  case OBSERVER -> NatsPermissions.observer();
                },
            NatsPermissions::and);
    all = grant.privateToken().map(all::privateTo).orElse(all);
    return Optional.of(all.toConfig(grant.user(), grant.password()));
  }

  private static String[] urls(String url) {
    List<String> urls = new ArrayList<>();
    for (String part : url.split(",")) {
      String trimmed = part.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      if (!trimmed.startsWith("nats://")
          && !trimmed.startsWith("tls://")
          && !trimmed.startsWith("opentls://")) {
        throw new IllegalArgumentException(
            "NATS URL "
                + PubSubFactory.Target.redacted(trimmed)
                + " has no nats:// or tls:// scheme (expected e.g. nats://127.0.0.1:4222)");
      }
      urls.add(trimmed);
    }
    if (urls.isEmpty()) {
      throw new IllegalArgumentException("No NATS URL given (expected e.g. nats://127.0.0.1:4222)");
    }
    return urls.toArray(String[]::new);
  }

  private static Path existing(String file, String variable) {
    Path path = Path.of(file);
    if (!Files.isReadable(path)) {
      throw new IllegalArgumentException(variable + "=" + file + ": no such readable file");
    }
    return path;
  }

  private static char[] seed(Path file) {
    try {
      return new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim().toCharArray();
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(
          "NATS_NKEY=" + file + ": cannot read it: " + e.getMessage());
    }
  }
}
