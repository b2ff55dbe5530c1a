package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import example.pets.Pet;
import example.pets.Status;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The generated interface against a loopback Pets API: what goes out and what comes back. */
class PetsAppTest {
  @Test
  void callsTheApiThroughTheGeneratedInterface() throws Exception {
    List<String> requests = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/pets",
        exchange -> {
          String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + body);
          String reply;
          int status = 200;
          if (exchange.getRequestMethod().equals("POST")) {
            status = 201;
            reply = "{\"id\": 7, \"name\": \"kit\", \"tag\": null, \"status\": \"pending\"}";
          } else if (exchange.getRequestURI().getPath().equals("/pets")) {
            reply = "[{\"id\": 1, \"name\": \"rex\", \"status\": \"available\"}]";
          } else {
            reply = "{\"id\": 7, \"name\": \"kit\", \"status\": \"pending\"}";
          }
          byte[] bytes = reply.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.start();
    try {
      List<Pet> pets = PetsApp.run("http://127.0.0.1:" + server.getAddress().getPort());
      assertEquals(3, pets.size());
      assertEquals("kit", pets.get(0).name());
      assertEquals(Status.PENDING, pets.get(0).status());
      assertEquals(Status.AVAILABLE, pets.get(1).status());
      assertEquals(7L, pets.get(2).id());
      assertEquals(
          List.of(
              "POST /pets {\"name\":\"kit\",\"status\":\"pending\"}",
              "GET /pets?limit=10&status=available ",
              "GET /pets/7 "),
          requests);
    } finally {
      server.stop(0);
    }
  }
}
