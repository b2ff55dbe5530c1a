package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.Identity;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tasks of MCP's tasks extension ({@code io.modelcontextprotocol/tasks}, 2026-07-28) this
 * server runs: a tool call answered at once with a task id, whose status and result the client
 * reads with {@code tasks/get} until it ends. A task is found by its id (128 random bits, so the id
 * cannot be guessed) and only by the identity that created it; it is kept for its time to live
 * after it was created, then forgotten. At most {@code maxTasks} are kept.
 */
final class Tasks {
  /** The extension's id, in capabilities. */
  static final String EXTENSION = "io.modelcontextprotocol/tasks";

  /** How often a client is asked to poll, in milliseconds. */
  static final long POLL_INTERVAL_MILLIS = 1_000;

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final long SWEEP_EVERY_MILLIS = 1_000;

  private final Map<String, Task> tasks = new ConcurrentHashMap<>();
  private final Duration ttl;
  private final int maxTasks;
  private final AtomicLong lastSweep = new AtomicLong();

  /** What every task id ends with: its node's key when tasks are shared ({@link TaskMesh}). */
  private volatile String idSuffix = "";

  Tasks(Duration ttl, int maxTasks) {
    this.ttl = ttl;
    this.maxTasks = maxTasks;
  }

  Duration ttl() {
    return ttl;
  }

  void idSuffix(String suffix) {
    this.idSuffix = suffix;
  }

  /** Whether the request's client capabilities declare the extension. */
  static boolean declared(JsonNode clientCapabilities) {
    return clientCapabilities != null
        && clientCapabilities.path("extensions").path(EXTENSION).isObject();
  }

  /** The error a client that did not declare the extension gets where it needs it (-32021). */
  static ObjectNode missingCapability(JsonNode id, String what) {
    ObjectNode required = Json.object();
    required.putObject("extensions").putObject(EXTENSION);
    return Modern.missingCapability(
        id, what + " needs the client capability extensions[\"" + EXTENSION + "\"]", required);
  }

  /** A new task for {@code owner}, kept before the client hears of it; empty when full. */
  Optional<Task> create(Identity owner) {
    sweep();
    if (tasks.size() >= maxTasks) {
      return Optional.empty();
    }
    byte[] bits = new byte[16];
    RANDOM.nextBytes(bits);
    Task task =
        new Task(HexFormat.of().formatHex(bits) + idSuffix, owner.subject(), Instant.now(), ttl);
    tasks.put(task.id, task);
    return Optional.of(task);
  }

  /** The task with that id, if {@code caller} created it and it has not expired. */
  Optional<Task> find(String id, Identity caller) {
    sweep();
    Task task = tasks.get(id);
    if (task == null || !task.owner.equals(caller.subject()) || task.expired(Instant.now())) {
      return Optional.empty();
    }
    return Optional.of(task);
  }

  int size() {
    return tasks.size();
  }

  /** Forgets expired tasks, at most once a second (a running task is cut at its deadline first). */
  private void sweep() {
    long now = System.currentTimeMillis();
    long last = lastSweep.get();
    if (now - last < SWEEP_EVERY_MILLIS || !lastSweep.compareAndSet(last, now)) {
      return;
    }
    Instant at = Instant.ofEpochMilli(now);
    tasks.values().removeIf(task -> task.expired(at) && task.isTerminal());
  }

  /** One task: its status, and once it ends, its result or error. Thread-safe. */
  static final class Task {
    final String id;
    final String owner;
    final Instant createdAt;
    final Duration ttl;
    private String status = "working";
    private String statusMessage;
    private Instant lastUpdatedAt;
    private ObjectNode result;
    private ObjectNode error;
    private Runnable cancel = () -> {};
    private ObjectNode inputRequests;
    private java.util.function.Consumer<JsonNode> onUpdate = responses -> {};

    Task(String id, String owner, Instant createdAt, Duration ttl) {
      this.id = id;
      this.owner = owner;
      this.createdAt = createdAt;
      this.ttl = ttl;
      this.lastUpdatedAt = createdAt;
    }

    synchronized boolean isTerminal() {
      return !status.equals("working") && !status.equals("input_required");
    }

    boolean expired(Instant now) {
      return now.isAfter(createdAt.plus(ttl));
    }

    /** What cancels the task's call; set once it runs. */
    synchronized void onCancel(Runnable action) {
      this.cancel = action;
    }

    /**
     * tasks/cancel: the task is cancelled at once and its call is cancelled as a client's cancel
     * does it (the handler's context says so; no answer is owed). A task already ended stays as it
     * ended.
     */
    void cancel() {
      Runnable action;
      synchronized (this) {
        if (isTerminal()) {
          return;
        }
        status = "cancelled";
        statusMessage = "Cancelled by the client";
        lastUpdatedAt = Instant.now();
        action = cancel;
      }
      action.run();
    }

    /** What answers input requests (tasks/update); set once the call runs. */
    synchronized void onUpdate(java.util.function.Consumer<JsonNode> action) {
      this.onUpdate = action;
    }

    /** tasks/update: the answers go to the call, which says what is still asked. */
    void update(JsonNode responses) {
      java.util.function.Consumer<JsonNode> action;
      synchronized (this) {
        if (isTerminal()) {
          return;
        }
        action = onUpdate;
      }
      action.accept(responses);
    }

    /** The call asks its client: the task waits, listing every question not answered yet. */
    synchronized void inputRequired(ObjectNode requests) {
      if (isTerminal()) {
        return;
      }
      if (requests.isEmpty()) {
        status = "working";
        inputRequests = null;
      } else {
        status = "input_required";
        inputRequests = requests;
      }
      lastUpdatedAt = Instant.now();
    }

    synchronized void progress(String message) {
      if (!isTerminal()) {
        statusMessage = message;
        lastUpdatedAt = Instant.now();
      }
    }

    /**
     * The call's JSON-RPC response: a result completes the task (an {@code isError} tool result
     * too), an error fails it.
     */
    synchronized void finish(ObjectNode response) {
      if (isTerminal()) {
        return;
      }
      lastUpdatedAt = Instant.now();
      inputRequests = null;
      if (response.get("result") instanceof ObjectNode done) {
        status = "completed";
        result = done;
        statusMessage = null;
      } else {
        status = "failed";
        error =
            response.get("error") instanceof ObjectNode failure
                ? failure
                : Json.object().put("code", Json.INTERNAL_ERROR).put("message", "The task failed");
        statusMessage = error.path("message").asString("The task failed");
      }
    }

    /** The task as {@code CreateTaskResult} and {@code tasks/get} give it. */
    synchronized ObjectNode json(boolean detailed) {
      ObjectNode json = Json.object();
      json.put("taskId", id);
      json.put("status", status);
      if (statusMessage != null) {
        json.put("statusMessage", statusMessage);
      }
      json.put("createdAt", createdAt.toString());
      json.put("lastUpdatedAt", lastUpdatedAt.toString());
      json.put("ttlMs", ttl.toMillis());
      json.put("pollIntervalMs", POLL_INTERVAL_MILLIS);
      if (detailed && inputRequests != null) {
        json.set("inputRequests", inputRequests.deepCopy());
      }
      if (detailed && result != null) {
        json.set("result", result.deepCopy());
      }
      if (detailed && error != null) {
        json.set("error", error.deepCopy());
      }
      return json;
    }
  }

  /**
   * Where a task's call answers: the call's response finishes the task, and its progress (a
   * SUBSCRIPTION's items, counted) becomes the status message. No client waits on it, so it never
   * breaks and never streams.
   */
  static final class TaskExchange implements Exchange {
    private final Task task;

    TaskExchange(Task task) {
      this.task = task;
    }

    Task task() {
      return task;
    }

    @Override
    public void notify(ObjectNode notification) {
      if ("notifications/progress".equals(notification.path("method").asString(""))) {
        long progress = notification.path("params").path("progress").asLong(0);
        task.progress(progress + (progress == 1 ? " item" : " items"));
      }
    }

    @Override
    public void reply(ObjectNode response) {
      task.finish(response);
    }

    @Override
    public void cancelled() {}

    @Override
    public void onBroken(Runnable action) {}
  }
}
