package dev.alkdev.operations.mcpserver.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The open {@code subscriptions/listen} streams of modern (2026-07-28) clients: each asked for some
 * kinds of change notification, got an acknowledgement, and then hears those changes tagged with
 * its subscription id (the listen request's id) until it goes away. Bounded like sessions: a listen
 * stream is what a 2025 session's GET stream was.
 */
final class Listens {
  /** The JSON-RPC code of a refusal for capacity; the HTTP transport answers it as 429. */
  static final int OVERLOADED = -32000;

  private final int max;
  private final int maxPerClient;
  private final Set<Listen> open = ConcurrentHashMap.newKeySet();

  private record Listen(Session session, JsonNode id, Exchange exchange, boolean tools) {}

  Listens(int max, int maxPerClient) {
    this.max = max;
    this.maxPerClient = maxPerClient;
  }

  void listen(Session session, JsonNode id, JsonNode params, Exchange exchange) {
    JsonNode filter = params.get("notifications");
    if (filter == null || !filter.isObject()) {
      exchange.reply(
          Json.error(
              id,
              Json.INVALID_PARAMS,
              "params.notifications must be an object naming the changes to hear"
                  + " (this server sends toolsListChanged)",
              null));
      return;
    }
    JsonNode toolsFlag = filter.get("toolsListChanged");
    boolean tools = toolsFlag != null && toolsFlag.isBoolean() && toolsFlag.asBoolean();
    Listen listen = new Listen(session, id, exchange, tools);
    synchronized (this) {
      if (open.size() >= max) {
        exchange.reply(
            Json.error(id, OVERLOADED, "Too many open subscriptions; try again later", null));
        return;
      }
      long mine =
          open.stream().filter(other -> other.session.client.equals(session.client)).count();
      if (mine >= maxPerClient) {
        exchange.reply(
            Json.error(
                id,
                OVERLOADED,
                "This client holds its most subscriptions (" + maxPerClient + "); close one first",
                null));
        return;
      }
      open.add(listen);
    }
    exchange.onBroken(() -> open.remove(listen));
    session.listens.put(Protocol.key(id), () -> end(listen));
    ObjectNode honoured = Json.object();
    if (tools) {
      honoured.put("toolsListChanged", true);
    }
    ObjectNode ack = Json.object();
    ack.set("notifications", honoured);
    exchange.notify(tagged("notifications/subscriptions/acknowledged", ack, id));
  }

  /** The tool list changed: every listen that asked hears it. */
  void toolsChanged() {
    for (Listen listen : open) {
      if (listen.session.isClosed()) {
        open.remove(listen);
      } else if (listen.tools) {
        listen.exchange.notify(
            tagged("notifications/tools/list_changed", Json.object(), listen.id));
      }
    }
  }

  /** The server closes: every listen stream ends. */
  void closeAll() {
    for (Listen listen : open) {
      end(listen);
    }
  }

  int size() {
    return open.size();
  }

  private void end(Listen listen) {
    if (open.remove(listen)) {
      listen.session.listens.remove(Protocol.key(listen.id));
      listen.exchange.cancelled();
    }
  }

  private static ObjectNode tagged(String method, ObjectNode params, JsonNode subscriptionId) {
    params.putObject("_meta").set(Modern.SUBSCRIPTION_ID, subscriptionId);
    return Json.notification(method, params);
  }
}
