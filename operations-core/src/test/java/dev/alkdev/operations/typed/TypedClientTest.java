package dev.alkdev.operations.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.annotation.AnnotatedOperations;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import dev.alkdev.operations.envelope.LocalResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Typed clients over a registry: binding, every method shape, the checks, errors and streams. */
class TypedClientTest {
  public record Order(String sku, int quantity) {}

  public record Quote(String sku, long cents) {}

  public record Tick(long n) {}

  /** The contract: served by {@link ShopImpl} through {@code implement}, called through clients. */
  @Namespace("shop")
  public interface Shop {
    @Operation(name = "quote", description = "Prices an order")
    Quote quote(Order order, OperationContext context);

    default Quote quote(Order order) {
      return quote(order, OperationContext.create());
    }

    @Operation(name = "ticks", type = OperationType.SUBSCRIPTION)
    Flow.Publisher<Tick> ticks(Tick from);

    @Operation(name = "whoami")
    String whoami(OperationContext context);

    @Operation(name = "fail")
    String fail(Order order);
  }

  /** The same operations, called in every other shape a client method may have. */
  @Namespace("shop")
  public interface ShopShapes {
    @Operation(name = "quote")
    CompletableFuture<Quote> quoteLater(Order order);

    @Operation(name = "quote")
    ResponseEnvelope<Quote> quoteEnvelope(Order order);

    @Operation(name = "quote")
    CompletableFuture<ResponseEnvelope<JsonNode>> quoteJson(Order order);

    @Operation(name = "quote")
    void quoteAndForget(Order order);

    @Operation(name = "quote")
    Quote quoteFromParameters(String sku, int quantity);

    @Operation(name = "ticks")
    Flow.Publisher<ResponseEnvelope<Tick>> tickEnvelopes(Tick from);

    @Operation(name = "fail")
    CompletableFuture<String> failLater(Order order);

    default String greeting() {
      return "hello from a default method";
    }
  }

  public static final class ShopImpl implements Shop {
    final List<OperationContext> contexts = new CopyOnWriteArrayList<>();

    @Override
    public Quote quote(Order order, OperationContext context) {
      contexts.add(context);
      return new Quote(order.sku(), 150L * order.quantity());
    }

    @Override
    public Flow.Publisher<Tick> ticks(Tick from) {
      return subscriber -> {
        SubmissionPublisher<Tick> publisher = new SubmissionPublisher<>();
        publisher.subscribe(subscriber);
        Thread producer =
            new Thread(
                () -> {
                  for (long n = from.n(); n < from.n() + 5; n++) {
                    publisher.submit(new Tick(n));
                  }
                  publisher.close();
                });
        producer.setDaemon(true);
        producer.start();
      };
    }

    @Override
    public String whoami(OperationContext context) {
      return context.identity().subject();
    }

    @Override
    public String fail(Order order) {
      throw new IllegalStateException("out of " + order.sku());
    }
  }

  private OperationRegistry registry;
  private ShopImpl impl;

  @BeforeEach
  void setUp() {
    registry = OperationRegistry.create();
    impl = new ShopImpl();
    registry.implement(Shop.class, impl);
  }

  @AfterEach
  void tearDown() {
    registry.close();
  }

  @Nested
  class OneContractServedAndCalled {
    @Test
    void implementRegistersTheAnnotatedMethodsOfTheContractWithSchemasFromTheirTypes() {
      assertThat(registry.list())
          .extracting(OperationSpec::id)
          .containsExactly("shop.fail", "shop.quote", "shop.ticks", "shop.whoami");
      OperationSpec quote = registry.getSpec("shop.quote").orElseThrow();
      assertThat(quote.description()).isEqualTo("Prices an order");
      assertThat(quote.inputSchema().json().get("properties").has("quantity")).isTrue();
      assertThat(registry.getSpec("shop.ticks").orElseThrow().type())
          .isEqualTo(OperationType.SUBSCRIPTION);
    }

    @Test
    void aBlockingMethodReturnsTheRecordTheHandlerReturned() {
      Shop shop = TypedClient.create(Shop.class, registry);
      assertThat(shop.quote(new Order("tea", 3))).isEqualTo(new Quote("tea", 450));
    }

    @Test
    void aCallGivenAContextIsItsChild() {
      Shop shop = TypedClient.create(Shop.class, registry);
      OperationContext parent =
          OperationContext.builder()
              .identity(Identity.of("ann"))
              .timeout(Duration.ofSeconds(9))
              .build();
      shop.quote(new Order("tea", 1), parent);
      OperationContext seen = impl.contexts.get(0);
      assertThat(seen.parentRequestId()).contains(parent.requestId());
      assertThat(seen.requestId()).isNotEqualTo(parent.requestId());
      assertThat(seen.identity().subject()).isEqualTo("ann");
      assertThat(seen.deadline()).isEqualTo(parent.deadline());
    }

    @Test
    void theClientsDefaultsGoWithCallsMadeWithoutAContext() {
      WhoAmI client =
          TypedClient.builder(WhoAmI.class, registry)
              .identity(Identity.of("bob"))
              .timeout(Duration.ofSeconds(5))
              .build();
      assertThat(client.whoami()).isEqualTo("bob");
      // A context given wins over the defaults: its identity, and the sooner deadline.
      assertThat(client.whoamiFor(OperationContext.builder().identity(Identity.of("carl")).build()))
          .isEqualTo("carl");
      assertThat(client.quote(new Order("tea", 1))).isEqualTo(new Quote("tea", 150));
      OperationContext seen = impl.contexts.get(0);
      assertThat(seen.identity().subject()).isEqualTo("bob");
      assertThat(seen.deadline()).isPresent();
      assertThat(seen.deadline().orElseThrow().remaining())
          .isLessThanOrEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void everyOtherShapeOfMethodWorks() throws Exception {
      ShopShapes shop = TypedClient.create(ShopShapes.class, registry);
      assertThat(shop.quoteLater(new Order("tea", 2)).get(5, TimeUnit.SECONDS))
          .isEqualTo(new Quote("tea", 300));
      ResponseEnvelope<Quote> envelope = shop.quoteEnvelope(new Order("tea", 2));
      assertThat(envelope.data()).isEqualTo(new Quote("tea", 300));
      assertThat(envelope.meta()).isInstanceOf(LocalResponseMeta.class);
      assertThat(
              shop.quoteJson(new Order("tea", 2))
                  .get(5, TimeUnit.SECONDS)
                  .data()
                  .get("cents")
                  .asLong())
          .isEqualTo(300);
      shop.quoteAndForget(new Order("tea", 2));
      assertThat(shop.quoteFromParameters("milk", 2)).isEqualTo(new Quote("milk", 300));
      assertThat(shop.greeting()).isEqualTo("hello from a default method");
      assertThat(impl.contexts).hasSize(5);
    }

    @Test
    void aStreamIsBackpressuredAndTyped() throws Exception {
      Shop shop = TypedClient.create(Shop.class, registry);
      Collector<Tick> collector = new Collector<>();
      shop.ticks(new Tick(10)).subscribe(collector);
      collector.subscribed.await(5, TimeUnit.SECONDS);
      collector.subscription.request(2);
      collector.awaitItems(2);
      Thread.sleep(100);
      assertThat(collector.items).containsExactly(new Tick(10), new Tick(11)); // no more than asked
      collector.subscription.request(Long.MAX_VALUE);
      assertThat(collector.done.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(collector.items).extracting(Tick::n).containsExactly(10L, 11L, 12L, 13L, 14L);
      assertThat(collector.error.get()).isNull();

      ShopShapes shapes = TypedClient.create(ShopShapes.class, registry);
      Collector<ResponseEnvelope<Tick>> envelopes = new Collector<>();
      shapes.tickEnvelopes(new Tick(0)).subscribe(envelopes);
      envelopes.subscribed.await(5, TimeUnit.SECONDS);
      envelopes.subscription.request(Long.MAX_VALUE);
      assertThat(envelopes.done.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(envelopes.items.get(4).data()).isEqualTo(new Tick(4));
    }

    @Test
    void objectMethodsAnswerForTheProxyItself() {
      Shop shop = TypedClient.create(Shop.class, registry);
      assertThat(shop).isEqualTo(shop).isNotEqualTo(TypedClient.create(Shop.class, registry));
      assertThat(shop.hashCode()).isEqualTo(System.identityHashCode(shop));
      assertThat(shop.toString()).startsWith("TypedClient[Shop over ");
    }
  }

  @Nested
  class Errors {
    @Test
    void aHandlersFailureIsThrownAsItsCallError() {
      Shop shop = TypedClient.create(Shop.class, registry);
      assertThatThrownBy(() -> shop.fail(new Order("tea", 1)))
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.EXECUTION_ERROR));
    }

    @Test
    void anAsyncMethodFailsItsFutureWithTheCallError() {
      ShopShapes shop = TypedClient.create(ShopShapes.class, registry);
      CompletableFuture<String> failed = shop.failLater(new Order("tea", 1));
      assertThatThrownBy(failed::join)
          .hasCauseInstanceOf(CallError.class)
          .cause()
          .satisfies(e -> assertThat(((CallError) e).code()).isEqualTo(ErrorCode.EXECUTION_ERROR));
    }

    @Test
    void invalidInputIsRefusedBeforeTheHandlerRuns() {
      Shop shop = TypedClient.create(Shop.class, registry);
      assertThatThrownBy(() -> shop.quote(new Order(null, 1)))
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT));
      assertThat(impl.contexts).isEmpty();
    }

    @Test
    void theClientsTimeoutEndsACallThatTakesLonger() {
      CountDownLatch release = new CountDownLatch(1);
      registry.register(
          OperationSpec.builder("slow", "wait").build(),
          (input, context) -> {
            release.await(10, TimeUnit.SECONDS);
            return "late";
          });
      Slow slow = TypedClient.builder(Slow.class, registry).timeout(Duration.ofMillis(200)).build();
      try {
        assertThatThrownBy(slow::waitForIt)
            .isInstanceOfSatisfying(
                CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
      } finally {
        release.countDown();
      }
    }

    @Test
    void anInterruptedCallerCancelsTheCallAndKeepsItsInterruptFlag() throws Exception {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch cancelled = new CountDownLatch(1);
      registry.register(
          OperationSpec.builder("slow", "wait").build(),
          Handler.async(
              (input, context) -> {
                started.countDown();
                context.cancellation().onCancel(cancelled::countDown);
                return new CompletableFuture<>();
              }));
      Slow slow = TypedClient.create(Slow.class, registry);
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      AtomicReference<Boolean> flag = new AtomicReference<>();
      Thread caller =
          new Thread(
              () -> {
                try {
                  slow.waitForIt();
                } catch (Throwable e) {
                  thrown.set(e);
                  flag.set(Thread.currentThread().isInterrupted());
                }
              });
      caller.start();
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      caller.interrupt();
      caller.join(5_000);
      assertThat(thrown.get())
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
      assertThat(flag.get()).isTrue();
      assertThat(cancelled.await(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aReplyThatDoesNotFitTheTypeIsAProtocolError() {
      registry.register(
          OperationSpec.builder("loose", "any").build(), (input, context) -> Map.of("n", "x"));
      Loose loose = TypedClient.create(Loose.class, registry);
      assertThatThrownBy(loose::any)
          .isInstanceOfSatisfying(
              CallError.class,
              e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
                assertThat(e.getMessage()).contains("loose.any", "does not fit Tick");
              });
    }
  }

  @Namespace("shop")
  public interface WhoAmI {
    String whoami();

    @Operation(name = "whoami")
    String whoamiFor(OperationContext context);

    Quote quote(Order order);
  }

  @Namespace("slow")
  public interface Slow {
    @Operation(name = "wait")
    String waitForIt();
  }

  @Namespace("loose")
  public interface Loose {
    Tick any();
  }

  @Nested
  class Binding {
    @Test
    void aMethodWithoutAnnotationIsBoundByItsNameOrItsNameInSnakeCase() {
      registry.register(
          OperationSpec.builder("pets", "list_pets").build(), (input, context) -> List.of("rex"));
      registry.register(OperationSpec.builder("pets", "count").build(), (input, context) -> 1);
      Pets pets = TypedClient.builder(Pets.class, registry).namespace("pets").build();
      assertThat(pets.listPets()).containsExactly("rex");
      assertThat(pets.count()).isEqualTo(1);
    }

    @Test
    void snakeCaseSplitsWordsAndAcronyms() {
      assertThat(TypedClient.snakeCase("listPets")).isEqualTo("list_pets");
      assertThat(TypedClient.snakeCase("getHTTPStatus")).isEqualTo("get_http_status");
      assertThat(TypedClient.snakeCase("get")).isEqualTo("get");
    }

    @Test
    void aCallerWithoutSpecsIsCheckedAgainstTheSpecsItIsGiven() {
      Shop shop =
          TypedClient.builder(Shop.class, new NoSpecs(registry))
              .specs(AnnotatedOperations.specs(Shop.class))
              .build();
      assertThat(shop.quote(new Order("tea", 1)).cents()).isEqualTo(150);
      assertThatThrownBy(() -> TypedClient.create(Shop.class, new NoSpecs(registry)))
          .hasMessageContaining(
              "shop.quote (Shop.quote()): no such operation (the caller, NoSpecs, has no spec of it)");
    }
  }

  public interface Pets {
    List<String> listPets();

    int count();
  }

  @Nested
  class FailsFast {
    @Test
    void everyMismatchOfEveryMethodIsNamedInOneException() {
      registry.register(
          OperationSpec.builder("shop", "status")
              .outputSchema(
                  """
                  {"type": "object", "properties": {
                     "state": {"type": "string", "enum": ["open", "closed", "moved"]},
                     "since": {"type": "integer"}},
                   "required": ["state"], "additionalProperties": false}""")
              .build(),
          (input, context) -> Map.of("state", "open"));
      List<String> problems = TypedClient.builder(Mismatched.class, registry).check();
      assertThat(problems)
          .anySatisfy(p -> assertThat(p).contains("shop.nothing", "no such operation"))
          .anySatisfy(
              p -> assertThat(p).contains("shop.ticks", "SUBSCRIPTION; return a Flow.Publisher"))
          .anySatisfy(p -> assertThat(p).contains("shop.quote", "input", "requires property 'sku'"))
          .anySatisfy(
              p ->
                  assertThat(p)
                      .contains("input.quantity", "the spec says integer, the type is String"))
          .anySatisfy(
              p -> assertThat(p).contains("output.cents", "the spec says integer", "Boolean"))
          .anySatisfy(p -> assertThat(p).contains("output.since", "use Long"))
          .anySatisfy(p -> assertThat(p).contains("output.state", "no constant for [moved]"))
          .anySatisfy(
              p -> assertThat(p).contains("output.extra", "no property 'extra'", "never receives"))
          .anySatisfy(p -> assertThat(p).contains("shop.whoami", "not a SUBSCRIPTION"))
          .anySatisfy(
              p ->
                  assertThat(p).contains("returns SubmissionPublisher; declare Flow.Publisher<R>"));
      assertThatThrownBy(() -> TypedClient.create(Mismatched.class, registry))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Mismatched does not fit the operations it calls (")
          .hasMessageContaining("\n  - ");
    }

    @Test
    void anInterfaceThatFitsHasNoProblems() {
      assertThat(TypedClient.builder(Shop.class, registry).check()).isEmpty();
      assertThat(TypedClient.builder(ShopShapes.class, registry).check()).isEmpty();
    }

    @Test
    void aClassIsNotAContract() {
      assertThatThrownBy(() -> TypedClient.create(ShopImpl.class, registry))
          .hasMessageContaining("is not an interface");
    }
  }

  @Nested
  class SchemaShapes {
    private List<String> check(Class<?> contract, String name, String input, String output) {
      registry.register(
          OperationSpec.builder("shapes", name).inputSchema(input).outputSchema(output).build(),
          (in, context) -> Map.of());
      return TypedClient.builder(contract, registry).check();
    }

    @Test
    void aNullBranchOfAnyOfAsksOnlyForAReference() {
      assertThat(
              check(
                  Nullable.class,
                  "nullable",
                  "{}",
                  """
                  {"anyOf": [{"$ref": "#/$defs/D"}, {"type": "null"}],
                   "$defs": {"D": {"type": "object", "required": ["n"],
                                   "properties": {"n": {"type": "integer"}}}}}"""))
          .isEmpty();
    }

    @Test
    void allOfIsCheckedAsTheObjectItsPartsMake() {
      String output =
          """
          {"allOf": [{"$ref": "#/$defs/D"},
                     {"type": "object", "required": ["x"], "properties": {"x": {"type": "string"}}}],
           "$defs": {"D": {"type": "object", "required": ["n"],
                           "properties": {"n": {"type": "integer"}}}}}""";
      assertThat(check(Merged.class, "merged", "{}", output)).isEmpty();
      assertThat(check(MergedWrong.class, "merged2", "{}", output))
          .singleElement()
          .asString()
          .contains("output.x: the spec says string, the type is long");
    }

    @Test
    void theOtherPropertiesMapIsNotAPropertyOfItsName() {
      assertThat(
              check(
                  Open.class,
                  "open",
                  "{}",
                  """
                  {"type": "object", "properties": {"id": {"type": "string"}},
                   "additionalProperties": {"type": "string"}}"""))
          .isEmpty();
    }

    @Test
    void anEnumConstantNamedEmptyIsTheEmptyString() {
      assertThat(
              check(
                  Blank.class,
                  "blank",
                  "{\"type\": \"object\", \"properties\": {\"e\": {\"enum\": [\"\", \"a\"]}}}",
                  "{}"))
          .isEmpty();
    }
  }

  public record D(long n) {}

  public record M(long n, String x) {}

  public record MWrong(long n, long x) {}

  public record OpenRecord(
      String id,
      @com.fasterxml.jackson.annotation.JsonAnySetter
          @com.fasterxml.jackson.annotation.JsonAnyGetter
          Map<String, String> additionalProperties) {}

  public enum E {
    @JsonProperty("")
    EMPTY,
    @JsonProperty("a")
    A
  }

  public record WithE(E e) {}

  @Namespace("shapes")
  public interface Nullable {
    D nullable();
  }

  @Namespace("shapes")
  public interface Merged {
    M merged();
  }

  @Namespace("shapes")
  public interface MergedWrong {
    @Operation(name = "merged2")
    MWrong merged();
  }

  @Namespace("shapes")
  public interface Open {
    OpenRecord open();
  }

  @Namespace("shapes")
  public interface Blank {
    String blank(WithE input);
  }

  public record BadOrder(String quantity) {}

  public record BadQuote(Boolean cents) {}

  public enum State {
    @JsonProperty("open")
    OPEN,
    @JsonProperty("closed")
    CLOSED
  }

  public record Status(State state, long since, String extra) {}

  @Namespace("shop")
  public interface Mismatched {
    String nothing();

    @Operation(name = "ticks")
    Tick ticks(Tick from);

    @Operation(name = "quote")
    BadQuote quote(BadOrder order);

    Status status();

    @Operation(name = "whoami")
    Flow.Publisher<String> whoami();

    @Operation(name = "ticks")
    SubmissionPublisher<Tick> ticksAsAClass(Tick from);
  }

  /** A caller that knows no specs, as a bare call protocol client. */
  static final class NoSpecs implements dev.alkdev.operations.OperationCaller {
    private final OperationRegistry registry;

    NoSpecs(OperationRegistry registry) {
      this.registry = registry;
    }

    @Override
    public java.util.Optional<OperationSpec> spec(String operationId) {
      return java.util.Optional.empty();
    }

    @Override
    public CompletableFuture<ResponseEnvelope<JsonNode>> call(
        String operationId, Object input, OperationContext context) {
      return registry.call(operationId, input, context);
    }

    @Override
    public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(
        String operationId, Object input, OperationContext context) {
      return registry.subscribe(operationId, input, context);
    }

    @Override
    public String toString() {
      return "NoSpecs";
    }
  }

  static final class Collector<T> implements Flow.Subscriber<T> {
    final List<T> items = new CopyOnWriteArrayList<>();
    final CountDownLatch subscribed = new CountDownLatch(1);
    final CountDownLatch done = new CountDownLatch(1);
    final AtomicReference<Throwable> error = new AtomicReference<>();
    volatile Flow.Subscription subscription;

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscribed.countDown();
    }

    @Override
    public void onNext(T item) {
      items.add(item);
    }

    @Override
    public void onError(Throwable throwable) {
      error.set(throwable);
      done.countDown();
    }

    @Override
    public void onComplete() {
      done.countDown();
    }

    void awaitItems(int count) throws InterruptedException {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (items.size() < count && System.nanoTime() < end) {
        Thread.sleep(5);
      }
      assertThat(new ArrayList<>(items)).hasSizeGreaterThanOrEqualTo(count);
    }
  }
}
