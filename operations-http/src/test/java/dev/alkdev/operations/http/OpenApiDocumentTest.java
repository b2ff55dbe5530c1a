package dev.alkdev.operations.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.openapi.FromOpenApi;
import dev.alkdev.operations.openapi.HttpAuth;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.openapi.OpenApiImport;
import dev.alkdev.operations.serving.OperationServer;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The generated document: valid for swagger-parser, filtered by the caller's scopes, and read back
 * by our own importer into operations that return what the originals return.
 */
class OpenApiDocumentTest extends GatewayTestSupport {
  static Fixtures fixtures;
  static OperationServer server;
  static HttpGateway gateway;

  @BeforeAll
  static void start() {
    fixtures = new Fixtures();
    server = OperationServer.create(fixtures.registry);
    gateway =
        HttpGateway.builder(server)
            .authenticator(
                Authenticator.bearerTokens(Map.of("admin-token", Identity.of("root", "admin"))))
            .title("Test operations")
            .start();
  }

  @AfterAll
  static void stop() {
    gateway.close();
    server.close();
    fixtures.registry.close();
  }

  @Test
  void swaggerParserReadsTheDocumentWithoutMessages() throws Exception {
    for (String token : List.of("", "admin-token")) {
      String document = document(token);
      ParseOptions options = new ParseOptions();
      options.setResolve(true);
      SwaggerParseResult result = new OpenAPIV3Parser().readContents(document, null, options);
      assertThat(result.getMessages()).as("token '%s'", token).isEmpty();
      assertThat(result.getOpenAPI().getOpenapi()).isEqualTo("3.1.0");
      assertThat(result.getOpenAPI().getPaths()).containsKey("/ops/demo.echo");
    }
  }

  @Test
  void theDocumentDescribesOnlyWhatTheCallerMaySee() throws Exception {
    JsonNode anonymous = JSON.readTree(document(""));
    JsonNode admin = JSON.readTree(document("admin-token"));
    assertThat(anonymous.path("paths").has("/ops/admin.stats")).isFalse();
    assertThat(admin.path("paths").has("/ops/admin.stats")).isTrue();
    assertThat(admin.at("/paths/~1ops~1admin.stats/get/security/0/bearer/0").asString())
        .isEqualTo("admin");
    assertThat(admin.at("/components/securitySchemes/bearer/scheme").asString())
        .isEqualTo("bearer");
    assertThat(anonymous.at("/info/title").asString()).isEqualTo("Test operations");
  }

  @Test
  void streamsAreEventStreamsWithAnItemSchemaAndDefsAreComponents() throws Exception {
    JsonNode doc = JSON.readTree(document(""));
    JsonNode ticks =
        doc.at("/paths/~1ops~1demo.ticks/get/responses/200/content/text~1event-stream");
    assertThat(ticks.at("/x-itemSchema/properties/data/properties/n/type").asString())
        .isEqualTo("integer");
    JsonNode v32 = JSON.readTree(document("", "/openapi.json?openapi=3.2"));
    assertThat(v32.get("openapi").asString()).isEqualTo("3.2.0");
    assertThat(
            v32.at(
                    "/paths/~1ops~1demo.ticks/get/responses/200/content/text~1event-stream"
                        + "/itemSchema/properties/data/properties/n/type")
                .asString())
        .isEqualTo("integer");
    JsonNode order =
        doc.at("/paths/~1ops~1shop.order/post/requestBody/content/application~1json/schema");
    assertThat(order.at("/properties/address/$ref").asString())
        .isEqualTo("#/components/schemas/shop.order_input_address");
    assertThat(doc.at("/components/schemas/shop.order_input_address/required/0").asString())
        .isEqualTo("city");
    assertThat(doc.at("/paths/~1ops~1demo.echo/get/parameters/0/name").asString())
        .isEqualTo("message");
  }

  @Test
  void theImportedOperationsReturnWhatTheOriginalsReturn() throws Exception {
    // 3.2: the stream's item schema is read back too.
    String document = document("admin-token", "/openapi.json?openapi=3.2");
    OpenApiImport imported =
        FromOpenApi.fromString(
            document,
            HttpServiceConfig.builder("remote")
                .baseUrl(gateway.uri())
                .auth(HttpAuth.bearer("admin-token"))
                .build());
    assertThat(imported.warnings()).isEmpty();
    try (OperationRegistry remote = OperationRegistry.create()) {
      imported.registerAll(remote);
      assertThat(remote.getSpec("remote.demo_echo").map(OperationSpec::type))
          .hasValue(OperationType.QUERY);
      assertThat(remote.getSpec("remote.shop_order").map(OperationSpec::type))
          .hasValue(OperationType.MUTATION);
      assertThat(remote.getSpec("remote.demo_ticks").map(OperationSpec::type))
          .hasValue(OperationType.SUBSCRIPTION);
      assertThat(remote.getSpec("remote.demo_ticks").get().outputSchema().isUnknown()).isFalse();

      List<Object[]> cases =
          List.of(
              new Object[] {"demo.echo", "demo_echo", Map.of("message", "hi", "repeat", 2), false},
              new Object[] {
                "demo.sum", "demo_sum", Map.of("numbers", List.of(1, 2.5), "exact", true), false
              },
              new Object[] {"demo.trace", "demo_trace", Map.of(), false},
              new Object[] {
                "shop.order",
                "shop_order",
                Map.of("item", "tea", "quantity", 2, "address", Map.of("city", "Oslo")),
                true
              },
              new Object[] {"admin.stats", "admin_stats", Map.of(), false});
      for (Object[] c : cases) {
        Object input = c[2];
        ResponseEnvelope<JsonNode> direct =
            fixtures
                .registry
                .execute(
                    (String) c[0],
                    input,
                    dev.alkdev.operations.OperationContext.builder()
                        .identity(Identity.of("root", "admin"))
                        .build())
                .get(10, TimeUnit.SECONDS);
        Object remoteInput = (boolean) c[3] ? Map.of("body", input) : input;
        ResponseEnvelope<JsonNode> through =
            remote.execute("remote." + c[1], remoteInput).get(10, TimeUnit.SECONDS);
        assertThat(through.data().get("data")).as((String) c[0]).isEqualTo(direct.data());
        assertThat(through.data().at("/meta/source").asString()).isEqualTo("local");
      }

      // A stream through the import: the same items, then the end.
      List<JsonNode> items = new ArrayList<>();
      CompletableFuture<Void> done = new CompletableFuture<>();
      remote
          .subscribe("remote.demo_ticks", Map.of("count", 3))
          .subscribe(
              new Flow.Subscriber<ResponseEnvelope<JsonNode>>() {
                Flow.Subscription subscription;

                @Override
                public void onSubscribe(Flow.Subscription s) {
                  subscription = s;
                  s.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(ResponseEnvelope<JsonNode> item) {
                  items.add(item.data());
                  if (items.size() == 3) {
                    subscription.cancel();
                    done.complete(null);
                  }
                }

                @Override
                public void onError(Throwable t) {
                  done.completeExceptionally(t);
                }

                @Override
                public void onComplete() {
                  done.complete(null);
                }
              });
      done.get(10, TimeUnit.SECONDS);
      assertThat(items).extracting(i -> i.at("/data/n").asInt()).containsExactly(1, 2, 3);
    }
  }

  private static String document(String token) throws Exception {
    return document(token, "/openapi.json");
  }

  private static String document(String token, String path) throws Exception {
    var builder = request(gateway, path);
    if (!token.isEmpty()) {
      builder.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> response = send(builder.build());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }
}
