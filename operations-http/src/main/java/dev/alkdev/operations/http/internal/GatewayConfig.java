package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.http.Authenticator;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What the builder decided, for the handler. */
public record GatewayConfig(
    Optional<Authenticator> authenticator,
    long maxRequestBytes,
    Set<String> corsOrigins,
    Set<String> allowedOrigins,
    boolean loopbackOnly,
    Set<String> allowedHosts,
    Duration keepAlive,
    Duration idleTimeout,
    boolean console,
    String title,
    Map<String, TextRoute> textRoutes) {}
