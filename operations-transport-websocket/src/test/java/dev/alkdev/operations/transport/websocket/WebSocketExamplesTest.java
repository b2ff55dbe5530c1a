package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.serving.OperationServer;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * The examples of operations-transport-websocket/README.md and docs/websocket.md (cut from the
 * regions marked {@code snippet}): a hub serving its registry, a spoke serving operations of its
 * own, and a spoke calling both through its catalog.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WebSocketExamplesTest {

  @Test
  void aHubTwoSpokesAndACall() throws Exception {
    String billingToken = "billing-secret";
    String appToken = "app-secret";
    try (OperationRegistry registry = OperationRegistry.create();
        OperationServer server = OperationServer.create(registry)) {
      registry.register(
          OperationSpec.builder("hub", "time").build(),
          Handler.blocking((input, ctx) -> System.currentTimeMillis()));
      // snippet: hub
      Map<String, Identity> tokens =
          Map.of(
              billingToken, Identity.of("billing", "ops:serve:billing.*"),
              appToken, Identity.of("app", "ops:call:*"));
      WebSocketHub hub =
          WebSocketHub.builder()
              .port(0) // a free port; 127.0.0.1 unless host(...) says otherwise
              .authenticator(Authenticator.bearerTokens(tokens))
              .permissions(SpokePermissions.byScopes()) // default: deny everything
              .allowedOrigins("https://app.example.com") // browsers from elsewhere: 403
              .serve(server) // the hub's own registry, through its serving pipeline
              .start();
      URI uri = hub.uri(); // ws://127.0.0.1:<port>/ws
      // end-snippet
      try (hub) {
        // snippet: spoke
        try (WebSocketSpoke spoke =
                WebSocketSpoke.connect(
                    SpokeOptions.builder(uri).bearerToken(billingToken).build());
            OperationRegistry billing = OperationRegistry.create();
            ServingNode node = ServingNode.start(billing, spoke)) {
          billing.register(
              OperationSpec.builder("billing", "refund").type(OperationType.MUTATION).build(),
              Handler.blocking((input, ctx) -> "refunded for " + ctx.identity().subject()));
          // end-snippet
          // snippet: call
          try (WebSocketSpoke app =
                  WebSocketSpoke.connect(SpokeOptions.builder(uri).bearerToken(appToken).build());
              RemoteCatalog catalog = RemoteCatalog.create(app)) {
            catalog.awaitSettled(java.time.Duration.ofMillis(250), java.time.Duration.ofSeconds(5));
            ResponseEnvelope<JsonNode> refund = catalog.call("billing.refund", Map.of()).join();
            ResponseEnvelope<JsonNode> time = catalog.call("hub.time", null).join();
            // end-snippet
            assertThat(refund.data().asString()).isEqualTo("refunded for app");
            assertThat(time.data().asLong()).isPositive();
            assertThat(node.nodeId()).isNotBlank();
          }
        }
      }
    }
  }
}
