package dev.alkdev.operations.mcpserver;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * HTTP/1.1 over a plain socket, so tests can send what the JDK client refuses to (any Host header,
 * hostile bodies) and read the raw answer. One request per connection ({@code Connection: close}).
 */
final class RawHttp {
  record Response(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    JsonNode json() {
      return Fixtures.json(body);
    }

    /** The JSON-RPC message of an answer that is JSON, or the last event of an SSE answer. */
    JsonNode message() {
      if (String.valueOf(header("content-type")).startsWith("text/event-stream")) {
        String last = null;
        for (String line : body.split("\n")) {
          if (line.startsWith("data: ")) {
            last = line.substring(6);
          }
        }
        return Fixtures.json(last);
      }
      return json();
    }
  }

  private RawHttp() {}

  static Response send(int port, String method, Map<String, String> headers, byte[] body)
      throws IOException {
    return send(port, "127.0.0.1", method, headers, body);
  }

  /** A request for {@code path} rather than the endpoint's. */
  static Response send(
      int port, String method, Map<String, String> headers, byte[] body, String path)
      throws IOException {
    return send(port, "127.0.0.1", method, headers, body, path);
  }

  static Response send(
      int port, String from, String method, Map<String, String> headers, byte[] body)
      throws IOException {
    return send(port, from, method, headers, body, "/mcp");
  }

  /** As {@link #send(int, String, Map, byte[])}, from the loopback address {@code from}. */
  static Response send(
      int port, String from, String method, Map<String, String> headers, byte[] body, String path)
      throws IOException {
    try (Socket socket = new Socket()) {
      socket.bind(new java.net.InetSocketAddress(java.net.InetAddress.getByName(from), 0));
      socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(10_000);
      StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
      Map<String, String> all = new LinkedHashMap<>();
      all.put("Host", "127.0.0.1:" + port);
      all.putAll(headers);
      all.put("Connection", "close");
      if (body != null) {
        all.put("Content-Length", Integer.toString(body.length));
      }
      all.forEach(
          (name, value) -> {
            if (value != null) {
              head.append(name).append(": ").append(value).append("\r\n");
            }
          });
      head.append("\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      if (body != null) {
        out.write(body);
      }
      out.flush();
      return read(socket.getInputStream());
    }
  }

  /** A JSON-RPC POST from the loopback address {@code from}. */
  static Response postFrom(int port, String from, Map<String, String> headers, String json)
      throws IOException {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("Content-Type", "application/json");
    all.put("Accept", "application/json, text/event-stream");
    all.putAll(headers);
    return send(port, from, "POST", all, json.getBytes(StandardCharsets.UTF_8));
  }

  static Response post(int port, Map<String, String> headers, String json) throws IOException {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("Content-Type", "application/json");
    all.put("Accept", "application/json, text/event-stream");
    all.putAll(headers);
    return send(port, "POST", all, json.getBytes(StandardCharsets.UTF_8));
  }

  private static Response read(InputStream in) throws IOException {
    byte[] all = in.readAllBytes();
    String text = new String(all, StandardCharsets.UTF_8);
    int end = text.indexOf("\r\n\r\n");
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(
          lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
          lines[i].substring(colon + 1).trim());
    }
    String body = text.substring(end + 4);
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      body = dechunk(body);
    }
    return new Response(status, headers, body);
  }

  private static String dechunk(String body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = 0;
    while (at < body.length()) {
      int lineEnd = body.indexOf("\r\n", at);
      if (lineEnd < 0) {
        break;
      }
      int size = Integer.parseInt(body.substring(at, lineEnd).trim(), 16);
      if (size == 0) {
        break;
      }
      // Sizes count bytes; the tests' bodies are ASCII JSON, so characters are bytes.
      out.writeBytes(
          body.substring(lineEnd + 2, lineEnd + 2 + size).getBytes(StandardCharsets.UTF_8));
      at = lineEnd + 2 + size + 2;
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
