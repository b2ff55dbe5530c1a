package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.mcp.McpInputHandler;
import dev.alkdev.operations.mcp.McpInputRequest;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a connection in the modern era (MCP 2026-07-28) keeps, whatever its transport: the client's
 * declared capabilities and identity for every request's metadata, the tools' mirrored parameters,
 * and the calls waiting on input rounds. A transport hands it the SDK's requests on their way out
 * and the server's messages on their way in; it hands back what goes on.
 */
final class ModernSession {
  private static final Logger LOG = LoggerFactory.getLogger(ModernSession.class);

  /** The most input rounds one call may take before it is failed. */
  private static final int MAX_INPUT_ROUNDS = 10;

  private final String serverName;
  private final Optional<McpInputHandler> inputHandler;
  private final Consumer<String> toSdk;
  private final BiConsumer<Object, ObjectNode> sendRetry;
  private volatile ObjectNode capabilities = ToolMapper.JSON.createObjectNode();
  private volatile ObjectNode clientInfo = ToolMapper.JSON.createObjectNode();
  private final Map<String, List<ModernWire.Param>> toolParams = new ConcurrentHashMap<>();

  /** Tool calls awaiting their result, by the id the caller knows. */
  private final Map<Object, InputRounds> awaiting = new ConcurrentHashMap<>();

  /** A retry's id to the id of the call it continues. */
  private final Map<Object, Object> retries = new ConcurrentHashMap<>();

  private static final class InputRounds {
    final ObjectNode request;
    int rounds;

    InputRounds(ObjectNode request) {
      this.request = request;
    }
  }

  /** What a server's message becomes for the SDK (null: nothing), and the id it answers. */
  record Incoming(String json, Object answers) {}

  /**
   * @param toSdk hands a message (JSON) to the SDK client
   * @param sendRetry sends a call's next round: the id the caller knows, and the request
   */
  ModernSession(
      String serverName,
      Optional<McpInputHandler> inputHandler,
      Consumer<String> toSdk,
      BiConsumer<Object, ObjectNode> sendRetry) {
    this.serverName = serverName;
    this.inputHandler = inputHandler;
    this.toSdk = toSdk;
    this.sendRetry = sendRetry;
  }

  /** Takes what the SDK's initialize declares: its capabilities and who it is. */
  void initializing(JsonNode initializeParams) {
    ObjectNode declared =
        initializeParams.get("capabilities") instanceof ObjectNode given
            ? given.deepCopy()
            : ToolMapper.JSON.createObjectNode();
    // The tasks extension: a call the server turns into a task is followed (TaskFollower).
    ObjectNode extensions =
        declared.get("extensions") instanceof ObjectNode present
            ? present
            : declared.putObject("extensions");
    extensions.putObject(ModernWire.TASKS_EXTENSION);
    capabilities = declared;
    if (initializeParams.get("clientInfo") instanceof ObjectNode info) {
      clientInfo = info;
    }
  }

  /** A request of the client's own (the probe, a listen), with the revision's metadata. */
  ObjectNode ownRequest(String id, String method, ObjectNode params) {
    ObjectNode message = ToolMapper.JSON.createObjectNode();
    message.put("jsonrpc", "2.0");
    message.put("id", id);
    message.put("method", method);
    message.set("params", params);
    ModernWire.addMeta(message, capabilities, clientInfo);
    return message;
  }

  /** The SDK's request on its way out: the metadata added; a tool call remembered for input. */
  ObjectNode outgoing(ObjectNode request) {
    ModernWire.addMeta(request, capabilities, clientInfo);
    if (McpSchema.METHOD_TOOLS_CALL.equals(request.path("method").asString(""))) {
      awaiting.put(idValue(request.get("id")), new InputRounds(request.deepCopy()));
    }
    return request;
  }

  /** The headers that mirror a request's body, with the tools' mirrored parameters. */
  Map<String, String> headers(ObjectNode request) {
    return ModernWire.headers(request, toolParams);
  }

  /** The call is over for the client (cancelled, or its request failed): no more rounds. */
  void forget(Object id) {
    if (id != null) {
      awaiting.remove(id);
    }
  }

  boolean isAwaiting(Object id) {
    return awaiting.containsKey(id);
  }

  /**
   * A server's message before the SDK reads it. A tools/list result gives the tools' mirrored
   * parameters, and a tool whose {@code x-mcp-header} annotations break the revision's rules is
   * left out, as the revision requires (with a warning saying why). A call's result that asks for
   * input starts the next round instead of reaching the SDK, and a retry's final answer goes to the
   * SDK under the id it knows.
   */
  Incoming incoming(String json) {
    JsonNode parsed;
    try {
      parsed = ToolMapper.JSON.readTree(json);
    } catch (RuntimeException e) {
      return new Incoming(json, null); // the transport says it is not JSON-RPC
    }
    if (!(parsed instanceof ObjectNode message)) {
      return new Incoming(json, null);
    }
    if ("notifications/subscriptions/acknowledged".equals(message.path("method").asString(""))) {
      return new Incoming(null, null); // the listen stream is open; nothing for the SDK
    }
    JsonNode idNode = message.get("id");
    Object id = idNode == null || idNode.isNull() ? null : idValue(idNode);
    if (id == null || !(message.has("result") || message.has("error"))) {
      return new Incoming(json, null);
    }
    Object original = retries.getOrDefault(id, id);
    JsonNode result = message.get("result");
    if (result != null && "input_required".equals(result.path("resultType").asString(""))) {
      InputRounds rounds = awaiting.get(original);
      if (rounds != null) {
        nextRound(original, rounds, result);
        return new Incoming(null, id);
      }
    }
    retries.remove(id);
    awaiting.remove(original);
    boolean changed = false;
    if (!original.equals(id)) {
      message.set("id", ToolMapper.JSON.valueToTree(original));
      changed = true;
    }
    if (result != null && result.get("tools") instanceof ArrayNode tools) {
      changed |= mirroredParams(tools);
    }
    return new Incoming(changed ? message.toString() : json, id);
  }

  static Object idValue(JsonNode id) {
    return id.isIntegralNumber() ? (Object) id.asInt() : id.asString();
  }

  /** Takes the tools' mirrored parameters; leaves out the tools with invalid annotations. */
  private boolean mirroredParams(ArrayNode tools) {
    boolean changed = false;
    for (int i = tools.size() - 1; i >= 0; i--) {
      JsonNode tool = tools.get(i);
      String name = tool.path("name").asString("");
      ModernWire.ToolHeaders headers = ModernWire.toolHeaders(tool.path("inputSchema"));
      if (headers.invalid().isPresent()) {
        LOG.warn("MCP server {}: tool {} left out: {}", serverName, name, headers.invalid().get());
        tools.remove(i);
        toolParams.remove(name);
        changed = true;
      } else if (headers.params().isEmpty()) {
        toolParams.remove(name);
      } else {
        toolParams.put(name, headers.params());
      }
    }
    return changed;
  }

  /**
   * The server asked for input: every request of the round goes to the input handler, and when all
   * are answered the call is sent again, with a new id, the answers and the server's {@code
   * requestState} exactly as it came. Without a handler, or past the rounds allowed, the call fails
   * saying what was asked.
   */
  private void nextRound(Object original, InputRounds rounds, JsonNode asked) {
    JsonNode requests = asked.path("inputRequests");
    String tool = rounds.request.path("params").path("name").asString("");
    String what = describe(requests);
    if (inputHandler.isEmpty()) {
      fail(
          original,
          "MCP server "
              + serverName
              + " asks for input during the call ("
              + what
              + ") and this client has no input handler (McpClientOptions.inputHandler)");
      return;
    }
    if (++rounds.rounds > MAX_INPUT_ROUNDS || !requests.isObject() || requests.isEmpty()) {
      fail(
          original,
          "MCP server "
              + serverName
              + (requests.isObject() && !requests.isEmpty()
                  ? " asked for input more than " + MAX_INPUT_ROUNDS + " times in one call"
                  : " asked for input without saying what"));
      return;
    }
    Map<String, CompletableFuture<JsonNode>> answers = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : requests.properties()) {
      JsonNode request = entry.getValue();
      CompletableFuture<JsonNode> answer;
      try {
        answer =
            inputHandler
                .get()
                .answer(
                    new McpInputRequest(
                        serverName,
                        tool,
                        request.path("method").asString(""),
                        request.path("params").isObject()
                            ? request.get("params")
                            : ToolMapper.JSON.createObjectNode()));
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      answers.put(entry.getKey(), answer);
    }
    CompletableFuture.allOf(answers.values().toArray(CompletableFuture[]::new))
        .whenComplete(
            (ok, failure) -> {
              if (failure != null) {
                Throwable cause =
                    failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
                fail(
                    original,
                    "The input handler could not answer MCP server "
                        + serverName
                        + " ("
                        + what
                        + "): "
                        + cause.getMessage());
                return;
              }
              if (!awaiting.containsKey(original)) {
                return; // cancelled meanwhile
              }
              ObjectNode retry = rounds.request.deepCopy();
              String retryId = original + "-input-" + rounds.rounds;
              retry.put("id", retryId);
              ObjectNode params = (ObjectNode) retry.get("params");
              ObjectNode responses = params.putObject("inputResponses");
              answers.forEach((key, answer) -> responses.set(key, answer.join()));
              JsonNode state = asked.get("requestState");
              if (state != null && state.isString()) {
                params.set("requestState", state);
              }
              retries.put(retryId, original);
              sendRetry.accept(original, retry);
            });
  }

  /** A round could not be sent: the retry is forgotten and the call fails. */
  void roundFailed(Object original, Object retryId, String why) {
    retries.remove(retryId);
    if (awaiting.containsKey(original)) {
      fail(original, "MCP server " + serverName + ": the call's next round failed: " + why);
    }
  }

  /** Fails a call by handing the SDK side an error answer under its id. */
  private void fail(Object original, String why) {
    awaiting.remove(original);
    ObjectNode error = ToolMapper.JSON.createObjectNode();
    error.put("jsonrpc", "2.0");
    error.set("id", ToolMapper.JSON.valueToTree(original));
    error.putObject("error").put("code", McpSchema.ErrorCodes.INTERNAL_ERROR).put("message", why);
    toSdk.accept(error.toString());
  }

  private static String describe(JsonNode requests) {
    List<String> parts = new ArrayList<>();
    if (requests.isObject()) {
      for (Map.Entry<String, JsonNode> entry : requests.properties()) {
        JsonNode request = entry.getValue();
        String message = request.path("params").path("message").asString("");
        if (message.length() > 200) {
          message = message.substring(0, 200) + "...";
        }
        parts.add(
            request.path("method").asString("?")
                + (message.isEmpty() ? "" : ": \"" + message + "\""));
      }
    }
    return parts.isEmpty() ? "nothing named" : String.join("; ", parts);
  }

  /**
   * The SDK's initialize answered from a modern server's discover result: the capabilities, the
   * server's identity from the result's {@code _meta}, the instructions, and the SDK's own revision
   * (it checks the answer against its own list, as the handshake would agree).
   */
  static String initializeResult(
      Object initializeId, JsonNode askedParams, JsonNode discovered, String serverName) {
    ObjectNode message = ToolMapper.JSON.createObjectNode();
    message.put("jsonrpc", "2.0");
    message.set("id", ToolMapper.JSON.valueToTree(initializeId));
    ObjectNode result = message.putObject("result");
    result.put(
        "protocolVersion",
        askedParams
            .path("protocolVersion")
            .asString(io.modelcontextprotocol.spec.ProtocolVersions.MCP_2025_11_25));
    result.set(
        "capabilities",
        discovered.get("capabilities") instanceof ObjectNode caps
            ? caps
            : ToolMapper.JSON.createObjectNode());
    JsonNode info = discovered.path("_meta").get(ModernWire.SERVER_INFO);
    if (info != null && info.isObject()) {
      result.set("serverInfo", info);
    } else {
      result.putObject("serverInfo").put("name", serverName).put("version", "unknown");
    }
    if (discovered.get("instructions") != null && discovered.get("instructions").isString()) {
      result.set("instructions", discovered.get("instructions"));
    }
    return message.toString();
  }
}
