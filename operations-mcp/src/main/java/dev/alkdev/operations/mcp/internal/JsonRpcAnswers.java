package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.sse.SseLimits;
import dev.alkdev.operations.sse.SseParser;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.client.ContentResponse;
import tools.jackson.databind.JsonNode;

/** The JSON-RPC answer in a response read whole: its JSON body, or the first on an event stream. */
final class JsonRpcAnswers {
  private JsonRpcAnswers() {}

  /** The answer ({@code result} or {@code error}), or null when the response holds none. */
  static JsonNode in(ContentResponse response, SseLimits limits) {
    String type = String.valueOf(response.getMediaType());
    try {
      if (type.startsWith("text/event-stream")) {
        List<String> data = new ArrayList<>();
        SseParser parser = SseParser.create(limits, event -> data.add(event.data()));
        parser.feed(response.getContent(), 0, response.getContent().length);
        parser.end();
        for (String json : data) {
          JsonNode message = ToolMapper.JSON.readTree(json);
          if (message.has("result") || message.has("error")) {
            return message;
          }
        }
        return null;
      }
      String text = response.getContentAsString();
      JsonNode message = text.isBlank() ? null : ToolMapper.JSON.readTree(text);
      return message != null && message.isObject() ? message : null;
    } catch (RuntimeException e) {
      return null; // not JSON-RPC
    }
  }
}
