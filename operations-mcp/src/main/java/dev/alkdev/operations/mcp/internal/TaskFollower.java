package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.mcp.McpInputHandler;
import dev.alkdev.operations.mcp.McpInputRequest;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Follows a tool call its server turned into a task until the task ends, so the caller sees an
 * ordinary call: MCP's tasks extension (2026-07-28: {@code tasks/get} until the task is terminal,
 * its result or error inline; input it asks for answered with {@code tasks/update}) and the
 * experimental tasks of 2025-11-25 ({@code tasks/get} until terminal, then {@code tasks/result}).
 * Polls at the server's interval, kept between 100 ms and 5 s; the caller's deadline and cancel end
 * the following and cancel the task ({@link #cancel}).
 */
final class TaskFollower {
  private static final Logger LOG = LoggerFactory.getLogger(TaskFollower.class);
  private static final long DEFAULT_POLL_MILLIS = 1_000;
  private static final long MIN_POLL_MILLIS = 100;
  private static final long MAX_POLL_MILLIS = 5_000;

  private final CallTrackingTransport transport;
  private final String server;
  private final Optional<McpInputHandler> inputHandler;

  TaskFollower(
      CallTrackingTransport transport, String server, Optional<McpInputHandler> inputHandler) {
    this.transport = transport;
    this.server = server;
    this.inputHandler = inputHandler;
  }

  /**
   * Whether a raw result (the SDK's map) may be a task, looked at without converting it: every
   * call's result passes here.
   */
  static boolean mayBeTask(Object raw) {
    return raw instanceof Map<?, ?> result
        && ("task".equals(result.get("resultType")) || result.get("task") instanceof Map);
  }

  /** The task a tools/call answered with, if it answered with one (either revision's shape). */
  static Optional<JsonNode> created(JsonNode result) {
    if ("task".equals(result.path("resultType").asString("")) && result.path("taskId").isString()) {
      return Optional.of(result);
    }
    if (result.path("task").path("taskId").isString()) {
      return Optional.of(result.get("task"));
    }
    return Optional.empty();
  }

  /**
   * The task's outcome as the tool call's raw result, or its error. Completing the returned future
   * otherwise (a cancel) stops the polling.
   */
  CompletableFuture<Object> follow(JsonNode task, boolean modern, String tool) {
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    String taskId = task.path("taskId").asString();
    LOG.debug("MCP server {}: tool {} runs as task {}", server, tool, taskId);
    poll(taskId, modern, tool, interval(task), new HashSet<>(), outcome);
    return outcome;
  }

  /** Asks the server to cancel the task; what it answers does not matter to the caller. */
  void cancel(String taskId) {
    transport
        .request(transport.newRequestId(), "tasks/cancel", Map.of("taskId", taskId))
        .whenComplete(
            (ok, error) -> {
              if (error != null) {
                LOG.debug("MCP server {}: cancelling task {} failed", server, taskId, error);
              }
            });
  }

  private void poll(
      String taskId,
      boolean modern,
      String tool,
      long delayMillis,
      Set<String> answered,
      CompletableFuture<Object> outcome) {
    CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              if (outcome.isDone()) {
                return;
              }
              transport
                  .request(transport.newRequestId(), "tasks/get", Map.of("taskId", taskId))
                  .whenComplete(
                      (raw, error) -> {
                        if (error != null) {
                          outcome.completeExceptionally(error);
                          return;
                        }
                        JsonNode got = ToolMapper.JSON.valueToTree(raw);
                        step(taskId, modern, tool, got, answered, outcome);
                      });
            });
  }

  private void step(
      String taskId,
      boolean modern,
      String tool,
      JsonNode got,
      Set<String> answered,
      CompletableFuture<Object> outcome) {
    String status = got.path("status").asString("");
    switch (status) {
      case "completed" -> {
        if (modern) {
          outcome.complete(got.path("result"));
        } else {
          fetchResult(taskId, outcome);
        }
      }
      case "failed" -> {
        if (modern) {
          JsonNode error = got.path("error");
          outcome.completeExceptionally(
              new McpError(
                  new McpSchema.JSONRPCResponse.JSONRPCError(
                      error.path("code").asInt(McpSchema.ErrorCodes.INTERNAL_ERROR),
                      error.path("message").asString(got.path("statusMessage").asString("failed")),
                      error.has("data")
                          ? ToolMapper.JSON.convertValue(error.get("data"), Object.class)
                          : null)));
        } else {
          fetchResult(taskId, outcome); // tasks/result gives the call's own result or error
        }
      }
      case "cancelled" ->
          outcome.completeExceptionally(
              CallError.of(
                  ErrorCode.CANCELLED,
                  "MCP server "
                      + server
                      + " cancelled task "
                      + taskId
                      + " of tool "
                      + tool
                      + got.path("statusMessage")
                          .asString("")
                          .transform(m -> m.isEmpty() ? "" : ": " + m)));
      case "working", "input_required" -> {
        if (modern && status.equals("input_required")) {
          answerInput(taskId, tool, got.path("inputRequests"), answered, outcome);
        }
        poll(taskId, modern, tool, interval(got), answered, outcome);
      }
      default ->
          outcome.completeExceptionally(
              CallError.of(
                  ErrorCode.PROTOCOL_ERROR,
                  "MCP server "
                      + server
                      + " gave task "
                      + taskId
                      + " a status MCP does not know: "
                      + status));
    }
  }

  /** 2025-11-25: the result of a terminal task, as the call's result (or its error). */
  private void fetchResult(String taskId, CompletableFuture<Object> outcome) {
    transport
        .request(transport.newRequestId(), "tasks/result", Map.of("taskId", taskId))
        .whenComplete(
            (raw, error) -> {
              if (error != null) {
                outcome.completeExceptionally(error);
              } else {
                outcome.complete(raw);
              }
            });
  }

  /**
   * The task asks for input: each request not answered yet goes to the input handler, and the
   * answers go back with tasks/update (keys are never reused, so one answered is never answered
   * again). Without a handler the task cannot go on: the call fails saying what was asked, and the
   * task is cancelled.
   */
  private void answerInput(
      String taskId,
      String tool,
      JsonNode requests,
      Set<String> answered,
      CompletableFuture<Object> outcome) {
    Map<String, JsonNode> fresh = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> request : requests.properties()) {
      synchronized (answered) {
        if (answered.add(request.getKey())) {
          fresh.put(request.getKey(), request.getValue());
        }
      }
    }
    if (fresh.isEmpty()) {
      return;
    }
    if (inputHandler.isEmpty()) {
      cancel(taskId);
      outcome.completeExceptionally(
          CallError.of(
              ErrorCode.EXECUTION_ERROR,
              "MCP server "
                  + server
                  + ": task "
                  + taskId
                  + " of tool "
                  + tool
                  + " asks for input ("
                  + String.join(
                      ", ",
                      fresh.values().stream().map(r -> r.path("method").asString("?")).toList())
                  + ") and the client has no input handler"));
      return;
    }
    ObjectNode responses = ToolMapper.JSON.createObjectNode();
    CompletableFuture<?>[] answers =
        fresh.entrySet().stream()
            .map(
                request ->
                    inputHandler
                        .get()
                        .answer(
                            new McpInputRequest(
                                server,
                                tool,
                                request.getValue().path("method").asString(""),
                                request.getValue().path("params")))
                        .thenAccept(
                            answer -> {
                              synchronized (responses) {
                                responses.set(request.getKey(), answer);
                              }
                            }))
            .toArray(CompletableFuture[]::new);
    CompletableFuture.allOf(answers)
        .whenComplete(
            (ok, error) -> {
              if (error != null) {
                cancel(taskId);
                outcome.completeExceptionally(
                    CallError.of(
                        ErrorCode.EXECUTION_ERROR,
                        "MCP server "
                            + server
                            + ": answering task "
                            + taskId
                            + " failed: "
                            + error.getMessage(),
                        error));
                return;
              }
              ObjectNode params = ToolMapper.JSON.createObjectNode();
              params.put("taskId", taskId);
              params.set("inputResponses", responses);
              transport
                  .request(
                      transport.newRequestId(),
                      "tasks/update",
                      ToolMapper.JSON.convertValue(params, Object.class))
                  .whenComplete(
                      (ack, failure) -> {
                        if (failure != null) {
                          outcome.completeExceptionally(failure);
                        }
                      });
            });
  }

  private static long interval(JsonNode task) {
    JsonNode given =
        task.has("pollIntervalMs") ? task.get("pollIntervalMs") : task.get("pollInterval");
    long millis = given != null && given.isNumber() ? given.asLong() : DEFAULT_POLL_MILLIS;
    return Math.max(MIN_POLL_MILLIS, Math.min(MAX_POLL_MILLIS, millis));
  }
}
