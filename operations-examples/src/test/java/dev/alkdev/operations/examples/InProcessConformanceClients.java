package dev.alkdev.operations.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.json.JsonMapper;

/**
 * The conformance suite's client runs, served in this JVM. The suite starts every scenario's client
 * at once (39 for a requirement set); as 39 JVMs they need some 80 CPU-seconds to start, more than
 * two cores give within the suite's 30-second timeout. So the command the suite runs is a small
 * bash script that hands its scenario, context and server URL over a loopback socket to {@link
 * McpConformanceClient#run} here, and exits with the code that comes back. The protocol the suite
 * checks is the same; only the process is shared.
 */
final class InProcessConformanceClients implements AutoCloseable {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final ServerSocket server;
  private final ExecutorService runs =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "conformance-client");
            thread.setDaemon(true);
            return thread;
          });
  private final Path script;

  private InProcessConformanceClients(ServerSocket server, Path script) {
    this.server = server;
    this.script = script;
  }

  /** Listens on a free loopback port and writes the script that connects to it. */
  static InProcessConformanceClients start() throws IOException {
    ServerSocket server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    Path script = Files.createTempFile("conformance-client", ".sh");
    // Each field base64 on a line of its own, so a context holding newlines arrives whole.
    Files.writeString(
        script,
        "#!/bin/bash\n"
            + "exec 3<>/dev/tcp/127.0.0.1/"
            + server.getLocalPort()
            + " || exit 3\n"
            + "enc() { printf '%s' \"$1\" | base64 -w0; echo; }\n"
            + "{ enc \"${MCP_CONFORMANCE_SCENARIO:-}\"; enc \"${MCP_CONFORMANCE_CONTEXT:-}\";"
            + " enc \"${@: -1}\"; } >&3\n"
            + "read -r code <&3\n"
            + "exit \"${code:-1}\"\n");
    script.toFile().setExecutable(true);
    InProcessConformanceClients clients = new InProcessConformanceClients(server, script);
    Thread acceptor = new Thread(clients::accept, "conformance-client-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
    return clients;
  }

  /** The command for the suite's {@code --command}. */
  Path script() {
    return script;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        runs.execute(() -> run(socket));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void run(Socket socket) {
    try (socket) {
      socket.setSoTimeout(10_000);
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String scenario = decode(in.readLine());
      String context = decode(in.readLine());
      String url = decode(in.readLine());
      socket.setSoTimeout(0);
      int code;
      try {
        code =
            McpConformanceClient.run(
                        url, scenario, JSON.readTree(context.isEmpty() ? "{}" : context))
                    == 0
                ? 0
                : 1;
      } catch (Exception e) {
        System.err.println("conformance client " + scenario + " failed: " + e);
        code = 1;
      }
      OutputStream out = socket.getOutputStream();
      out.write((code + "\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
    } catch (IOException e) {
      // The suite killed the script (its timeout): no one waits for the code.
    }
  }

  private static String decode(String line) {
    return line == null || line.isEmpty()
        ? ""
        : new String(Base64.getDecoder().decode(line), StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    server.close();
    runs.shutdownNow();
    Files.deleteIfExists(script);
  }
}
