package example.shop;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;

/**
 * A chat assistant whose model calls the shop's operations as tools: the starter's {@code
 * operationTools} offers every operation the model's scopes allow ({@code operations.ai.scopes}).
 * The model is whichever Spring AI model the application adds (a {@code
 * spring-ai-starter-model-*}).
 */
@Service
public class Assistant {
  private final ObjectProvider<ChatModel> model;
  private final ObjectProvider<ToolCallbackProvider> operationTools;

  public Assistant(
      ObjectProvider<ChatModel> model,
      @Qualifier("operationTools") ObjectProvider<ToolCallbackProvider> operationTools) {
    this.model = model;
    this.operationTools = operationTools;
  }

  public String ask(String question) {
    ChatModel chat =
        model.getIfAvailable(
            () -> {
              throw new IllegalStateException(
                  "no Spring AI chat model: add a model starter such as"
                      + " spring-ai-starter-model-openai and its API key");
            });
    // snippet: chat
    return ChatClient.builder(chat)
        .defaultToolCallbacks(operationTools.getObject()) // the starter's "operationTools" bean
        .build()
        .prompt(question)
        .call()
        .content();
    // end-snippet
  }
}
