package dev.alkdev.operations.examples;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.annotation.AnnotatedOperations;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.typed.TypedClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;

/**
 * Typed clients (docs/typed-clients.md): one contract, served in process and on a node, called
 * through the same interface locally, through a remote catalogue and through a bare call protocol
 * client. {@code mvn -B -q compile exec:java -pl operations-examples -am
 * -Dexec.mainClass=dev.alkdev.operations.examples.TypedClientExamples}.
 */
public final class TypedClientExamples {
  private TypedClientExamples() {}

  // snippet: contract
  public record Order(String sku, int quantity) {}

  public record Quote(String sku, long cents) {}

  public record Watch(String sku) {}

  @Namespace("shop")
  public interface Shop {
    @Operation(name = "quote", description = "Prices an order")
    Quote quote(Order order);

    @Operation(name = "quoteLater")
    CompletableFuture<Quote> quoteLater(Order order);

    @Operation(name = "prices", description = "A price per change")
    Flow.Publisher<Quote> prices(Watch watch);
  }

  // end-snippet

  /** Serves the contract: what a team writes once. */
  public static final class ShopService implements Shop {
    @Override
    public Quote quote(Order order) {
      return new Quote(order.sku(), 250L * order.quantity());
    }

    @Override
    public CompletableFuture<Quote> quoteLater(Order order) {
      return CompletableFuture.completedFuture(quote(order));
    }

    @Override
    public Flow.Publisher<Quote> prices(Watch watch) {
      return subscriber -> {
        SubmissionPublisher<Quote> prices = new SubmissionPublisher<>();
        prices.subscribe(subscriber);
        for (long cents = 250; cents < 253; cents++) {
          prices.submit(new Quote(watch.sku(), cents));
        }
        prices.close();
      };
    }
  }

  public static void main(String[] args) throws Exception {
    System.out.println(local());
    System.out.println(remote());
    System.out.println(nested());
  }

  /** In process: the contract served by a registry, called through the interface. */
  public static Quote local() {
    try (OperationRegistry registry = OperationRegistry.create()) {
      // snippet: local
      registry.implement(Shop.class, new ShopService()); // the interface's methods as operations
      Shop shop = TypedClient.create(Shop.class, registry); // checked against their specs now
      Quote quote = shop.quote(new Order("tea", 2));
      // end-snippet
      return quote;
    }
  }

  /** Across a pub/sub: a node serves the contract; callers use the same interface. */
  public static List<Quote> remote() throws Exception {
    try (PubSub pubsub = InProcessPubSub.create();
        OperationRegistry registry = OperationRegistry.create()) {
      registry.implement(Shop.class, new ShopService());
      try (ServingNode node = ServingNode.start(registry, pubsub);
          RemoteCatalog catalog = RemoteCatalog.create(pubsub);
          PendingRequestMap pending = PendingRequestMap.create(pubsub)) {
        catalog.awaitSettled(Duration.ofMillis(200), Duration.ofSeconds(5));
        // snippet: remote
        Shop shop =
            TypedClient.builder(Shop.class, catalog) // routed to the nodes that serve shop.*
                .identity(Identity.of("checkout"))
                .timeout(Duration.ofSeconds(2)) // each call's deadline
                .build();
        Quote quote = shop.quote(new Order("tea", 2));

        // A bare call protocol client knows no specs: check against the contract's own.
        Shop direct =
            TypedClient.builder(Shop.class, pending)
                .specs(AnnotatedOperations.specs(Shop.class))
                .build();
        Quote later = direct.quoteLater(new Order("milk", 1)).join();
        // end-snippet
        return List.of(quote, later);
      }
    }
  }

  /** A handler that calls on: through a context parameter, the call is the handler's child. */
  // snippet: nested
  @Namespace("shop")
  public interface ShopCalls { // a caller's own view of shop.quote
    @Operation(name = "quote")
    Quote quote(Order order, OperationContext context);
  }

  @Namespace("checkout")
  public interface Checkout {
    @Operation(name = "total")
    Quote total(Order order, OperationContext context);
  }

  public static final class CheckoutService implements Checkout {
    private final ShopCalls shop;

    public CheckoutService(ShopCalls shop) {
      this.shop = shop;
    }

    @Override
    public Quote total(Order order, OperationContext context) {
      // Same identity, deadline and cancellation as this call; this call as its parent.
      Quote quote = shop.quote(order, context);
      return new Quote(quote.sku(), quote.cents() + 99);
    }
  }

  // end-snippet

  /** checkout.total, which calls shop.quote through {@link ShopCalls}. */
  public static Quote nested() {
    try (OperationRegistry registry = OperationRegistry.create()) {
      registry.implement(Shop.class, new ShopService());
      ShopCalls shop = TypedClient.create(ShopCalls.class, registry);
      registry.implement(Checkout.class, new CheckoutService(shop));
      Checkout checkout = TypedClient.create(Checkout.class, registry);
      return checkout.total(new Order("tea", 1), OperationContext.create());
    }
  }
}
