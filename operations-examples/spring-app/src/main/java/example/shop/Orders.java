package example.shop;

import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/** Operations orders.place and orders.refund: a bean's annotated methods, found by the starter. */
// snippet: orders
@Component
@Namespace("orders")
public class Orders {
  public record Order(String item, int quantity) {}

  public record Receipt(long orderId, String item, int quantity) {}

  public record RefundRequest(long orderId) {}

  public record Refund(long orderId, boolean refunded) {}

  private final AtomicLong ids = new AtomicLong(1000);

  @Operation(description = "Places an order for an item")
  public Receipt place(Order order) {
    if (order.quantity() < 1) {
      throw new IllegalArgumentException("quantity must be at least 1");
    }
    return new Receipt(ids.incrementAndGet(), order.item(), order.quantity());
  }

  @Operation(description = "Refunds an order", scopes = "admin")
  public Refund refund(RefundRequest request) {
    return new Refund(request.orderId(), true);
  }
}
// end-snippet
