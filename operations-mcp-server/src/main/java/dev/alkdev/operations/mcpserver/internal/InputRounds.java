package dev.alkdev.operations.mcpserver.internal;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calls waiting for a 2026-07-28 client to send them again with the input they asked for (an
 * {@code InputRequiredResult} went out), by the {@code requestState} they gave: 128 random bits, so
 * a state cannot be guessed or altered into another call's, and each is taken once. A waiting call
 * is still bounded by its deadline; when it ends, its state goes with it.
 */
final class InputRounds {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<String, McpCall> waiting = new ConcurrentHashMap<>();

  /** A new state for {@code call}. */
  String suspend(McpCall call) {
    byte[] bits = new byte[16];
    RANDOM.nextBytes(bits);
    String state = HexFormat.of().formatHex(bits);
    waiting.put(state, call);
    return state;
  }

  /** The call that gave {@code state}, once; null for a state this server did not give. */
  McpCall take(String state) {
    return waiting.remove(state);
  }

  void forget(String state, McpCall call) {
    if (state != null) {
      waiting.remove(state, call);
    }
  }
}
