package example.shop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A chat model with no network: its first answer calls the next scripted tool with the scripted
 * arguments; once it is shown the tool's response it answers with that response. It records what
 * it was offered and shown, as a provider's model would receive them.
 */
final class ScriptedChatModel implements ChatModel {
  private final ToolCallingManager tools = ToolCallingManager.builder().build();
  private final List<List<String>> offered = new CopyOnWriteArrayList<>();
  private final List<String> shown = new CopyOnWriteArrayList<>();
  private volatile String toolName = "";
  private volatile String arguments = "{}";

  /** The tool call the next question gets. */
  void script(String toolName, String arguments) {
    this.toolName = toolName;
    this.arguments = arguments;
  }

  @Override
  public ChatOptions getOptions() {
    return ToolCallingChatOptions.builder().build();
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    if (prompt.getOptions() instanceof ToolCallingChatOptions options) {
      offered.add(
          tools.resolveToolDefinitions(options).stream().map(ToolDefinition::name).toList());
    }
    List<Message> messages = prompt.getInstructions();
    AssistantMessage answer;
    if (messages.get(messages.size() - 1) instanceof ToolResponseMessage response) {
      String data = response.getResponses().get(0).responseData();
      shown.add(data);
      answer = new AssistantMessage("Done: " + data);
    } else {
      answer =
          AssistantMessage.builder()
              .content("")
              .toolCalls(
                  List.of(new AssistantMessage.ToolCall("call-1", "function", toolName, arguments)))
              .build();
    }
    return new ChatResponse(List.of(new Generation(answer)));
  }

  /** The tool names offered on the latest question. */
  List<String> offered() {
    return offered.isEmpty() ? List.of() : offered.get(offered.size() - 1);
  }

  /** Every tool response the model was shown. */
  List<String> shown() {
    return new ArrayList<>(shown);
  }
}
