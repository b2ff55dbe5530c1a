package dev.alkdev.operations.transport.redis.internal;

import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.PubSubFactory;
import dev.alkdev.operations.transport.redis.RedisAcl;
import dev.alkdev.operations.transport.redis.RedisOptions;
import dev.alkdev.operations.transport.redis.RedisPubSub;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The {@code redis} kind for hosts such as {@code ops --redis URL}: one {@code redis://}, {@code
 * rediss://} or {@code redis-sentinel://} URL (a password may be in it, as Lettuce reads it), and
 * credentials from the environment, so none is written on a command line: {@code REDIS_PASSWORD}
 * (with {@code REDIS_USERNAME} for an ACL user), and {@code REDIS_CA_CERT} (a PEM file of
 * certificates to trust for {@code rediss://}). {@code OPS_PRIVATE_TOKEN}, when set, is the
 * transport's private token ({@link RedisOptions.Builder#privateToken}): its inboxes are then the
 * user's own, for a user whose ACL is {@link RedisAcl#privateTo privateTo} the same token.
 *
 * <p>{@link #brokerUser} writes the ACL of a grant's roles, {@link RedisAcl#privateTo private to}
 * the grant's private token when it has one.
 */
public final class RedisPubSubFactory implements PubSubFactory {
  @Override
  public Optional<String> brokerUser(BrokerGrant grant) {
    if (!grant.kind().equals("redis")) {
      return Optional.empty();
    }
    RedisAcl all =
        grant.combine(
            role ->
                switch (role) {
                  case CALLER -> RedisAcl.caller(grant.operations());
                  case SERVER -> RedisAcl.server(grant.operations(), grant.nodeId());
                  case OBSERVER -> RedisAcl.observer();
                },
            RedisAcl::and);
    all = grant.privateToken().map(all::privateTo).orElse(all);
    return Optional.of(all.toAclSetuser(grant.user(), grant.password()));
  }

  @Override
  public Optional<PubSub> connect(Target target) {
    if (!target.kind().equals("redis")) {
      return Optional.empty();
    }
    RedisOptions.Builder options =
        RedisOptions.builder(target.url().trim()).connectTimeout(target.connectTimeout());
    Optional<String> user = target.variable("REDIS_USERNAME");
    Optional<String> password = target.variable("REDIS_PASSWORD");
    if (user.isPresent() && password.isEmpty()) {
      throw new IllegalArgumentException("REDIS_USERNAME needs REDIS_PASSWORD as well");
    }
    if (password.isPresent()) {
      if (user.isPresent()) {
        options.credentials(user.get(), password.get().toCharArray());
      } else {
        options.password(password.get().toCharArray());
      }
    }
    target.variable("REDIS_CA_CERT").ifPresent(file -> options.trustedCertificates(Path.of(file)));
    target.privateToken().ifPresent(options::privateToken);
    return Optional.of(RedisPubSub.connect(options.build()));
  }
}
