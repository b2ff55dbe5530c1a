package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tasks shared by the MCP servers of a mesh: each server's task ids end with its node's key, and a
 * {@code tasks/get} or {@code tasks/cancel} for a task another server runs is asked of that server
 * over the pub/sub transport they share ({@code ops.mcp.tasks.<node key>}), so a client may poll
 * whichever server a load balancer sends it to. The owner checks the caller's identity as for its
 * own clients. An owner that is gone (no subscriber) means the task is gone; one that does not
 * answer within {@link #ASK_TIMEOUT} is UNAVAILABLE.
 */
final class TaskMesh implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TaskMesh.class);
  private static final RateLimitedLog BAD_MESSAGES = RateLimitedLog.of(LOG);
  static final String TOPIC_PREFIX = "ops.mcp.tasks.";
  static final Duration ASK_TIMEOUT = Duration.ofSeconds(5);

  private final PubSub pubsub;
  private final String nodeKey;
  private final String replyTopic;
  private final Tasks tasks;
  private final Map<String, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();
  private final PubSub.Subscription requests;
  private final PubSub.Subscription replies;

  TaskMesh(PubSub pubsub, String nodeId, Tasks tasks) {
    this.pubsub = pubsub;
    this.nodeKey = key(nodeId);
    this.replyTopic = TOPIC_PREFIX + nodeKey + ".replies";
    this.tasks = tasks;
    this.requests =
        pubsub.subscribe(TOPIC_PREFIX + nodeKey, SubscribeOptions.defaults(), this::onRequest);
    this.replies = pubsub.subscribe(replyTopic, SubscribeOptions.defaults(), this::onReply);
  }

  /** A node id as it goes in task ids and topics: hex, so any id is a safe topic segment. */
  static String key(String nodeId) {
    return HexFormat.of().formatHex(nodeId.getBytes(StandardCharsets.UTF_8));
  }

  /** What this node's task ids end with. */
  String idSuffix() {
    return "." + nodeKey;
  }

  /** The key of the node that runs {@code taskId}, when it is another node's. */
  Optional<String> ownerElsewhere(String taskId) {
    int dot = taskId.lastIndexOf('.');
    if (dot < 0 || dot == taskId.length() - 1) {
      return Optional.empty();
    }
    String owner = taskId.substring(dot + 1);
    if (owner.equals(nodeKey) || !owner.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      return Optional.empty();
    }
    return Optional.of(owner);
  }

  /**
   * Asks the owner for {@code op} ("get" or "cancel") on its task for {@code caller}: completes
   * with the task's detailed JSON, or empty JSON ({@code {}}) when the owner does not know it (or
   * it is not the caller's), or fails with UNAVAILABLE.
   */
  CompletableFuture<JsonNode> ask(String owner, String op, String taskId, Identity caller) {
    String correlation = UUID.randomUUID().toString();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    waiting.put(correlation, answer);
    answer.whenComplete((ok, error) -> waiting.remove(correlation));
    ObjectNode request = Json.object();
    request.put("correlation", correlation);
    request.put("replyTo", replyTopic);
    request.put("op", op);
    request.put("taskId", taskId);
    request.put("subject", caller.subject());
    pubsub
        .publish(TOPIC_PREFIX + owner, Json.bytes(request))
        .whenComplete(
            (receivers, error) -> {
              if (error != null) {
                answer.completeExceptionally(error);
              } else if (receivers == 0) {
                answer.complete(Json.object()); // the server that ran it is gone, and the task
              }
            });
    return answer
        .orTimeout(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            error ->
                CompletableFuture.failedFuture(
                    CallError.of(
                        ErrorCode.UNAVAILABLE,
                        "The server that runs task "
                            + taskId
                            + " did not answer: "
                            + (error.getMessage() == null ? error : error.getMessage()))));
  }

  /** Another server asks about one of this server's tasks. */
  private void onRequest(Message message) {
    JsonNode request;
    try {
      request = Json.MAPPER.readTree(message.payload());
    } catch (RuntimeException e) {
      BAD_MESSAGES.warn("A task request on {} is not JSON; dropped", message.topic());
      return;
    }
    String replyTo = request.path("replyTo").asString("");
    if (!replyTo.startsWith(TOPIC_PREFIX)) {
      BAD_MESSAGES.warn("A task request on {} has no reply topic; dropped", message.topic());
      return;
    }
    ObjectNode reply = Json.object();
    reply.set("correlation", request.path("correlation"));
    String subject = request.path("subject").asString("");
    // A request naming nobody is answered as for an unknown task.
    Optional<Tasks.Task> task =
        subject.isBlank()
            ? Optional.empty()
            : tasks.find(request.path("taskId").asString(""), new Identity(subject, Set.of()));
    if (task.isPresent()) {
      if ("cancel".equals(request.path("op").asString(""))) {
        task.get().cancel();
      }
      reply.set("task", task.get().json(true));
    }
    pubsub
        .publish(replyTo, Json.bytes(reply))
        .whenComplete(
            (receivers, error) -> {
              if (error != null) {
                LOG.debug("Answering a task request failed", error);
              }
            });
  }

  private void onReply(Message message) {
    JsonNode reply;
    try {
      reply = Json.MAPPER.readTree(message.payload());
    } catch (RuntimeException e) {
      BAD_MESSAGES.warn("A task reply on {} is not JSON; dropped", message.topic());
      return;
    }
    CompletableFuture<JsonNode> answer = waiting.get(reply.path("correlation").asString(""));
    if (answer != null) {
      answer.complete(reply.path("task").isObject() ? reply.get("task") : Json.object());
    }
  }

  @Override
  public void close() {
    requests.close();
    replies.close();
    CallError closed = CallError.of(ErrorCode.UNAVAILABLE, "The MCP server closed");
    waiting.values().forEach(answer -> answer.completeExceptionally(closed));
  }
}
