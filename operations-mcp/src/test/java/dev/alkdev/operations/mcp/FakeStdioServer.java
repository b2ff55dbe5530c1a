package dev.alkdev.operations.mcp;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A misbehaving MCP server over stdio, for the client's fault tests: it answers the handshake and
 * lists one tool {@code t}, then does what its mode (the first argument) says when the tool is
 * called: {@code exit} (exits mid-call, leaving a child that holds stdout open), {@code huge} (a 20
 * MB answer with its id written last), {@code nocontent} (a result without content), {@code silent}
 * (never answers; writes each {@code notifications/cancelled} reason to the file given as the
 * second argument), {@code deep} (its tool list nests 1,000 deep), {@code stubborn} (ignores
 * SIGTERM, and so does a child it starts).
 */
public final class FakeStdioServer {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private FakeStdioServer() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    if (mode.equals("exit")) {
      // A child that inherits stdout keeps the pipe open after this process is gone.
      new ProcessBuilder("sleep", "30")
          .redirectOutput(ProcessBuilder.Redirect.INHERIT)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
    }
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode message = JSON.readTree(line);
      String method = message.path("method").asString("");
      JsonNode id = message.get("id");
      switch (method) {
        case "initialize" -> {
          ObjectNode result = JSON.createObjectNode();
          result.put("protocolVersion", message.path("params").path("protocolVersion").asString());
          result.putObject("capabilities").putObject("tools");
          result.putObject("serverInfo").put("name", "fake").put("version", "1");
          reply(out, id, result);
        }
        case "tools/list" -> {
          if (mode.equals("deep")) {
            StringBuilder schema = new StringBuilder();
            for (int i = 0; i < 1000; i++) {
              schema.append("{\"type\":\"object\",\"properties\":{\"a\":");
            }
            schema.append("{\"type\":\"string\"}");
            schema.append("}}".repeat(1000));
            out.println(
                "{\"jsonrpc\":\"2.0\",\"id\":"
                    + JSON.writeValueAsString(id)
                    + ",\"result\":{\"tools\":[{\"name\":\"t\",\"inputSchema\":"
                    + schema
                    + "}]}}");
          } else {
            ObjectNode result = JSON.createObjectNode();
            ObjectNode tool = result.putArray("tools").addObject();
            tool.put("name", "t");
            tool.putObject("inputSchema").put("type", "object");
            tool.putObject("outputSchema").put("type", "object");
            reply(out, id, result);
          }
        }
        case "tools/call" -> call(mode, args, out, id);
        case "notifications/cancelled" -> {
          if (args.length > 1) {
            Files.writeString(
                Path.of(args[1]),
                message.path("params").path("reason").asString() + "\n",
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
          }
        }
        default -> {
          if (id != null) {
            reply(out, id, JSON.createObjectNode());
          }
        }
      }
    }
  }

  private static void call(String mode, String[] args, PrintStream out, JsonNode id)
      throws Exception {
    switch (mode) {
      case "exit" -> Runtime.getRuntime().halt(3);
      case "huge" -> {
        StringBuilder text = new StringBuilder(20_000_000);
        text.append("x".repeat(20_000_000));
        out.println(
            "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
                + text
                + "\"}]},\"jsonrpc\":\"2.0\",\"id\":"
                + JSON.writeValueAsString(id)
                + "}");
      }
      case "nocontent" -> {
        ObjectNode result = JSON.createObjectNode();
        result.putArray("hello").add(1).add(2).add(3);
        reply(out, id, result);
      }
      case "iserror" -> {
        ObjectNode result = JSON.createObjectNode();
        result.put("isError", true);
        result.putArray("content").addObject().put("type", "text").put("text", "it broke");
        reply(out, id, result);
      }
      default -> {
        // silent: never answer
      }
    }
  }

  private static void reply(PrintStream out, JsonNode id, JsonNode result) {
    ObjectNode message = JSON.createObjectNode();
    message.put("jsonrpc", "2.0");
    message.set("id", id);
    message.set("result", result);
    out.println(JSON.writeValueAsString(message));
  }
}
