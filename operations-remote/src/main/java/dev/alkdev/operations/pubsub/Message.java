package dev.alkdev.operations.pubsub;

import dev.alkdev.operations.Identity;
import java.util.Objects;
import java.util.Optional;

/**
 * A delivered message.
 *
 * @param topic where it was published
 * @param payload its bytes (do not modify them: receivers may share one array)
 * @param identity who sent it, when the transport authenticated the sender's connection
 */
public record Message(String topic, byte[] payload, Optional<Identity> identity) {
  public Message {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(identity, "identity");
  }
}
