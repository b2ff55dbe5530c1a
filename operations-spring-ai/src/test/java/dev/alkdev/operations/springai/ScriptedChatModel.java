package dev.alkdev.operations.springai;

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
 * A chat model without a network: asked anything, it calls one tool with fixed arguments; shown the
 * tool's response, it answers with a text that quotes it. It resolves the tool definitions it is
 * offered through a {@link ToolCallingManager}, as Spring AI's provider models do. In Spring AI 2.0
 * the model does not run the tool loop: the {@code ToolCallingAdvisor} that {@code ChatClient}
 * registers does, which is what runs the tools here.
 */
final class ScriptedChatModel implements ChatModel {
  private final String toolName;
  private final String arguments;
  private final ToolCallingManager toolCallingManager = ToolCallingManager.builder().build();
  private final List<Prompt> prompts = new CopyOnWriteArrayList<>();
  private final List<List<ToolDefinition>> offered = new CopyOnWriteArrayList<>();

  ScriptedChatModel(String toolName, String arguments) {
    this.toolName = toolName;
    this.arguments = arguments;
  }

  @Override
  public ChatOptions getOptions() {
    // Tool-calling options, so that ChatClient attaches the request's tools to the prompt.
    return ToolCallingChatOptions.builder().build();
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    prompts.add(prompt);
    if (prompt.getOptions() instanceof ToolCallingChatOptions options) {
      offered.add(toolCallingManager.resolveToolDefinitions(options));
    }
    List<Message> messages = prompt.getInstructions();
    Message last = messages.get(messages.size() - 1);
    AssistantMessage answer;
    if (last instanceof ToolResponseMessage response) {
      answer =
          new AssistantMessage("The tool said: " + response.getResponses().get(0).responseData());
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

  /** The names of the tools the model was offered on its first call. */
  List<String> toolNamesOffered() {
    return offered.isEmpty()
        ? List.of()
        : offered.get(0).stream().map(ToolDefinition::name).toList();
  }

  /** The tool definitions offered on the first call. */
  List<ToolDefinition> toolsOffered() {
    return offered.isEmpty() ? List.of() : offered.get(0);
  }

  /** Every tool response the model was shown, in order. */
  List<String> toolResponsesSeen() {
    List<String> seen = new ArrayList<>();
    for (Prompt prompt : prompts) {
      List<Message> messages = prompt.getInstructions();
      if (messages.get(messages.size() - 1) instanceof ToolResponseMessage response) {
        response.getResponses().forEach(r -> seen.add(r.responseData()));
      }
    }
    return seen;
  }

  int calls() {
    return prompts.size();
  }
}
