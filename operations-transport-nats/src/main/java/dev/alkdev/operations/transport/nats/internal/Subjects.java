package dev.alkdev.operations.transport.nats.internal;

import java.util.Optional;

/**
 * How topics become NATS subjects: unchanged. Topics are already '.'-separated tokens, which is
 * what a subject is, so the mapping is the identity and a topic another language's client publishes
 * to is the subject it names. What NATS gives another meaning to is refused rather than escaped, so
 * that no two topics can map to one subject: the wildcards {@code *} and {@code >}, whitespace and
 * control characters (they end a subject in the protocol), and empty tokens.
 */
public final class Subjects {
  private Subjects() {}

  /** Why {@code topic} cannot be a subject, or empty when it can. */
  public static Optional<String> problem(String topic) {
    if (topic.isEmpty()) {
      return Optional.of("it is empty");
    }
    if (topic.startsWith(".") || topic.endsWith(".") || topic.contains("..")) {
      return Optional.of("it has an empty token (a '.' at either end or two in a row)");
    }
    for (int i = 0; i < topic.length(); i++) {
      char c = topic.charAt(i);
      if (c == '*' || c == '>') {
        return Optional.of("'" + c + "' is a NATS wildcard");
      }
      if (c <= ' ' || c == 0x7f) {
        return Optional.of("it contains whitespace or a control character at index " + i);
      }
    }
    return Optional.empty();
  }

  /**
   * Why {@code group} cannot be a NATS queue group name, or empty when it can: no whitespace or
   * control characters (a group name is one token of the SUB line).
   */
  public static Optional<String> queueGroupProblem(String group) {
    if (group.isEmpty()) {
      return Optional.of("it is empty");
    }
    for (int i = 0; i < group.length(); i++) {
      char c = group.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        return Optional.of("it contains whitespace or a control character at index " + i);
      }
    }
    return Optional.empty();
  }
}
