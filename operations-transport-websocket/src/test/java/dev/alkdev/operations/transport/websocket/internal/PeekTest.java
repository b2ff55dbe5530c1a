package dev.alkdev.operations.transport.websocket.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PeekTest {
  private static Peek peek(String json) {
    return Peek.of(json.getBytes(StandardCharsets.UTF_8), false);
  }

  /** An event of {@code names} extra fields ({@code f0}, {@code f1}...) after its type. */
  private static String event(int names, String last) {
    StringBuilder json = new StringBuilder("{\"type\":\"call.requested\"");
    for (int i = 0; i < names; i++) {
      json.append(",\"f").append(i).append("\":").append(i);
    }
    return json.append(last).append('}').toString();
  }

  @Test
  void readsTheFieldsTheRulesNeed() {
    Peek p =
        peek(
            "{\"v\":1,\"type\":\"call.requested\",\"requestId\":\"r1\",\"replyTo\":\"ops.inbox.a\","
                + "\"input\":{\"requestId\":\"nested\"},\"deadlineMs\":500,\"demand\":{}}");
    assertThat(p.readable).isTrue();
    assertThat(p.type).isEqualTo("call.requested");
    assertThat(p.requestId).isEqualTo("r1");
    assertThat(p.replyTo).isEqualTo("ops.inbox.a");
    assertThat(p.deadlineMs).isEqualTo(500);
    assertThat(p.hasDemand).isTrue();
  }

  @Test
  void aDuplicateNameIsUnreadableWhereverItIs() {
    assertThat(peek("{\"requestId\":\"a\",\"requestId\":\"b\"}")).isSameAs(Peek.UNREADABLE);
    // Among few names, and past the sixteen the small array holds.
    assertThat(peek(event(3, ",\"f1\":9"))).isSameAs(Peek.UNREADABLE);
    assertThat(peek(event(15, ",\"f0\":9"))).isSameAs(Peek.UNREADABLE);
    assertThat(peek(event(16, ",\"f0\":9"))).isSameAs(Peek.UNREADABLE);
    assertThat(peek(event(40, ",\"f39\":9"))).isSameAs(Peek.UNREADABLE);
    assertThat(peek(event(40, ",\"type\":\"x\""))).isSameAs(Peek.UNREADABLE);
  }

  @Test
  void manyDistinctNamesAreReadable() {
    Peek p = peek(event(40, ",\"requestId\":\"r\""));
    assertThat(p.readable).isTrue();
    assertThat(p.requestId).isEqualTo("r");
  }

  @Test
  void notAnObjectIsUnreadable() {
    assertThat(peek("[1]")).isSameAs(Peek.UNREADABLE);
    assertThat(peek("{\"a\":1} {}")).isSameAs(Peek.UNREADABLE);
    assertThat(peek("{\"a\":")).isSameAs(Peek.UNREADABLE);
  }
}
