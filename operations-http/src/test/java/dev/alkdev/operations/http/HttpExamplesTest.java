package dev.alkdev.operations.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.serving.OperationServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The examples of operations-http/README.md and docs/http.md (cut from the snippet regions). */
class HttpExamplesTest {

  @Test
  void serveAndCall() throws Exception {
    try (OperationRegistry registry = OperationRegistry.create()) {
      registry.register(
          OperationSpec.builder("greetings", "hello")
              .inputSchema(
                  "{\"type\": \"object\", \"required\": [\"name\"],"
                      + " \"properties\": {\"name\": {\"type\": \"string\"}}}")
              .requiredScopes("greet")
              .build(),
          Handler.blocking((input, ctx) -> "Hello, " + input.get("name").asString()));
      // snippet: serve
      OperationServer server = OperationServer.create(registry); // the one serving pipeline
      HttpGateway gateway =
          HttpGateway.builder(server)
              .port(0) // a free port (8080, say, in production); host 127.0.0.1 unless told
              .authenticator(
                  Authenticator.bearerTokens(Map.of("s3cret", Identity.of("ada", "greet"))))
              .start();
      URI base = gateway.uri(); // http://127.0.0.1:PORT/: the console; /openapi.json; /ops/{id}
      // end-snippet
      try {
        // snippet: call
        HttpRequest request =
            HttpRequest.newBuilder(base.resolve("/ops/greetings.hello?name=Ada"))
                .header("Authorization", "Bearer s3cret")
                .build();
        HttpResponse<String> response =
            HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        // 200 {"data":"Hello, Ada","meta":{"source":"local","operationId":"greetings.hello",...}}
        // end-snippet
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
            .startsWith("{\"data\":\"Hello, Ada\",\"meta\":{\"source\":\"local\"");
      } finally {
        gateway.close();
        server.close();
      }
    }
  }
}
