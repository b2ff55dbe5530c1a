package dev.alkdev.operations.mcp;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** An MCP server built with the SDK, on Jetty, on a free loopback port; records what it got. */
final class HttpTestServer implements AutoCloseable {
  final Server jetty;
  final McpSyncServer mcp;
  final List<String> bodies = new CopyOnWriteArrayList<>();
  final List<String> testHeaders = new CopyOnWriteArrayList<>();
  final int port;

  HttpTestServer() throws Exception {
    HttpServletStreamableServerTransportProvider provider =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(McpJsonDefaults.getMapper())
            .mcpEndpoint("/mcp")
            .build();
    mcp =
        McpServer.sync(provider)
            .serverInfo("test-server", "1.0.0")
            .strictToolNameValidation(false)
            .capabilities(TestTools.capabilities())
            .tools(TestTools.all())
            .build();
    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addServlet(new ServletHolder(provider), "/*");
    context.addFilter(
        new FilterHolder(new Recorder()),
        "/*",
        EnumSet.allOf(jakarta.servlet.DispatcherType.class));
    jetty.setHandler(context);
    jetty.start();
    port = connector.getLocalPort();
  }

  String url() {
    return "http://127.0.0.1:" + port + "/mcp";
  }

  boolean sawCancelled() {
    return bodies.stream().anyMatch(b -> b.contains("notifications/cancelled"));
  }

  @Override
  public void close() throws Exception {
    mcp.close();
    jetty.stop();
  }

  /** Keeps a copy of every POST body so tests can see the notifications the client sent. */
  private final class Recorder implements Filter {
    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, jakarta.servlet.ServletException {
      HttpServletRequest http = (HttpServletRequest) request;
      if (http.getHeader("X-Test") != null) {
        testHeaders.add(http.getHeader("X-Test"));
      }
      if (!"POST".equals(http.getMethod())) {
        chain.doFilter(request, response);
        return;
      }
      byte[] body = http.getInputStream().readAllBytes();
      bodies.add(new String(body, StandardCharsets.UTF_8));
      chain.doFilter(new Replay(http, body), response);
    }
  }

  private static final class Replay extends HttpServletRequestWrapper {
    private final byte[] body;

    Replay(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new UnsupportedOperationException();
        }

        @Override
        public int read() {
          return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
          return in.read(b, off, len);
        }
      };
    }

    @Override
    public BufferedReader getReader() {
      return new BufferedReader(
          new InputStreamReader(new ByteArrayInputStream(body), StandardCharsets.UTF_8));
    }
  }
}
