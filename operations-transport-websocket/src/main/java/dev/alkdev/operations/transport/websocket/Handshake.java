package dev.alkdev.operations.transport.websocket;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What an {@link Authenticator} sees of a WebSocket upgrade request: its headers, the subprotocols
 * the client offered, and where it came from. Nothing in it has been checked but the Origin.
 *
 * @param headers the request's headers, names in lower case
 * @param subprotocols the subprotocols offered ({@code Sec-WebSocket-Protocol}), in order
 * @param remoteAddress the peer's address, for logs and per-address rules
 */
public record Handshake(
    Map<String, List<String>> headers, List<String> subprotocols, String remoteAddress) {

  /** The subprotocol a browser offers to carry a bearer token: {@code ops.bearer.<token>}. */
  public static final String BEARER_SUBPROTOCOL_PREFIX = "ops.bearer.";

  public Handshake {
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(subprotocols, "subprotocols");
    Objects.requireNonNull(remoteAddress, "remoteAddress");
    TreeMap<String, List<String>> lower = new TreeMap<>();
    headers.forEach(
        (name, values) -> lower.put(name.toLowerCase(Locale.ROOT), List.copyOf(values)));
    headers = Map.copyOf(lower);
    subprotocols = List.copyOf(subprotocols);
  }

  /** The first value of header {@code name} (any case). */
  public Optional<String> header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
  }

  /**
   * The bearer token of the request: the {@code Authorization: Bearer <token>} header, or, for a
   * browser (which cannot set headers on a WebSocket), an offered subprotocol {@code
   * ops.bearer.<token>}. The hub never echoes that subprotocol back.
   */
  public Optional<String> bearerToken() {
    Optional<String> authorization = header("authorization");
    if (authorization.isPresent()) {
      String value = authorization.get().trim();
      if (value.regionMatches(true, 0, "Bearer ", 0, 7)) {
        String token = value.substring(7).trim();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
      }
      return Optional.empty();
    }
    for (String offered : subprotocols) {
      if (offered.startsWith(BEARER_SUBPROTOCOL_PREFIX)
          && offered.length() > BEARER_SUBPROTOCOL_PREFIX.length()) {
        return Optional.of(offered.substring(BEARER_SUBPROTOCOL_PREFIX.length()));
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    // Headers carry credentials: never print them.
    return "Handshake[from " + remoteAddress + ", subprotocols " + subprotocols.size() + "]";
  }
}
