package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.PubSubFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The remote transports the properties name ({@code operations.nats}, {@code operations.redis}),
 * connected at start-up when a node serves on them or imports from them, shared by both and closed
 * when the context closes. The transports are found with {@link PubSubFactory#installed}, so the
 * starter does not compile against them: add {@code operations-transport-nats} or {@code
 * operations-transport-redis}.
 */
public final class OperationsTransports implements DisposableBean {
  private final Map<String, OperationsProperties.Transport> settings = new LinkedHashMap<>();
  private final Map<String, String> urls = new LinkedHashMap<>();
  private final Map<String, PubSub> connected = new LinkedHashMap<>();

  OperationsTransports(OperationsProperties properties, Environment environment) {
    add("nats", properties.getNats(), Optional.ofNullable(properties.getNats().getUrl()));
    add("redis", properties.getRedis(), redisUrl(properties.getRedis(), environment));
  }

  private void add(String kind, OperationsProperties.Transport transport, Optional<String> url) {
    if (transport.isServe() || transport.isImportOperations()) {
      if (url.isEmpty() || url.get().isBlank()) {
        throw new IllegalStateException(
            "operations."
                + kind
                + ".url is required when operations."
                + kind
                + ".serve or .import-operations is true");
      }
      settings.put(kind, transport);
      urls.put(kind, url.get());
    }
  }

  /**
   * {@code operations.redis.url}, else one made from Boot's {@code spring.data.redis.url} or {@code
   * spring.data.redis.host}, {@code .port}, {@code .database}, {@code .username} and {@code
   * .password}.
   */
  static Optional<String> redisUrl(OperationsProperties.Transport redis, Environment environment) {
    if (redis.getUrl() != null && !redis.getUrl().isBlank()) {
      return Optional.of(redis.getUrl());
    }
    Binder binder = Binder.get(environment);
    Optional<String> url =
        binder
            .bind("spring.data.redis.url", String.class)
            .map(java.util.Optional::of)
            .orElse(java.util.Optional.empty());
    if (url.isPresent()) {
      return url;
    }
    String host = binder.bind("spring.data.redis.host", String.class).orElse("localhost");
    int port = binder.bind("spring.data.redis.port", Integer.class).orElse(6379);
    int database = binder.bind("spring.data.redis.database", Integer.class).orElse(0);
    Optional<String> user =
        binder
            .bind("spring.data.redis.username", String.class)
            .map(java.util.Optional::of)
            .orElse(java.util.Optional.empty());
    Optional<String> password =
        binder
            .bind("spring.data.redis.password", String.class)
            .map(java.util.Optional::of)
            .orElse(java.util.Optional.empty());
    boolean ssl = binder.bind("spring.data.redis.ssl.enabled", Boolean.class).orElse(false);
    String credentials = password.map(p -> user.orElse("") + ":" + encode(p) + "@").orElse("");
    return Optional.of(
        (ssl ? "rediss://" : "redis://") + credentials + host + ":" + port + "/" + database);
  }

  private static String encode(String text) {
    return java.net.URLEncoder.encode(text, java.nio.charset.StandardCharsets.UTF_8)
        .replace("+", "%20");
  }

  /** The kinds configured, in order: nats, redis. */
  List<String> kinds() {
    return List.copyOf(settings.keySet());
  }

  OperationsProperties.Transport settings(String kind) {
    return settings.get(kind);
  }

  /** The URL of {@code kind} with any credentials in it replaced, for messages and health. */
  String shownUrl(String kind) {
    return PubSubFactory.Target.redacted(urls.get(kind));
  }

  /**
   * The transport of {@code kind}, connected on first use.
   *
   * @throws IllegalStateException naming the property when no transport of that kind is on the
   *     class path, its URL is wrong, or it cannot be reached in time
   */
  synchronized PubSub connect(String kind) {
    PubSub pubsub = connected.get(kind);
    if (pubsub != null) {
      return pubsub;
    }
    OperationsProperties.Transport transport = settings.get(kind);
    PubSubFactory.Target target =
        new PubSubFactory.Target(
            kind, urls.get(kind), transport.getConnectTimeout(), System.getenv());
    Optional<PubSub> made;
    try {
      made =
          PubSubFactory.connectFirst(
              PubSubFactory.installed(OperationsTransports.class.getClassLoader()), target);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "operations." + kind + ".url " + shownUrl(kind) + ": " + e.getMessage(), e);
    } catch (CallError e) {
      throw new IllegalStateException(
          "operations." + kind + ".url " + shownUrl(kind) + ": cannot connect: " + e.getMessage(),
          e);
    }
    if (made.isEmpty()) {
      throw new IllegalStateException(
          "operations."
              + kind
              + ": no "
              + kind
              + " transport on the class path; add dev.alkdev.operations:operations-transport-"
              + kind);
    }
    connected.put(kind, made.get());
    return made.get();
  }

  /** The transports connected so far, by kind. */
  synchronized Map<String, PubSub> connected() {
    return Map.copyOf(connected);
  }

  @Override
  public synchronized void destroy() {
    for (PubSub pubsub : connected.values()) {
      try {
        pubsub.close();
      } catch (RuntimeException e) {
        // Closing the others matters more.
      }
    }
    connected.clear();
  }
}
