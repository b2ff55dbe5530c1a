package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * Jetty's HTTP client for imported operations' unary calls (decision D70), started on first use, so
 * an import that is only listed starts no threads. Why Jetty and not the JDK client: its {@code
 * sendAsync} starts a thread per call on machines with fewer than three CPUs (D17). Threads are
 * daemons and run our response listeners and the continuations of a call's future: nothing there
 * may block.
 */
public final class JettyClient implements AutoCloseable {
  /**
   * The client of imports made with {@code FromOpenApi} directly: they have no close, so they share
   * one client for the life of the JVM instead of leaving one per import behind.
   */
  static final JettyClient SHARED = new JettyClient("ops-openapi-http");

  /** Calls waiting for one of a service's 64 connections before more are refused. */
  static final int MAX_QUEUED = 65_536;

  private final String threadName;
  private HttpClient client; // guarded by this
  private boolean closed; // guarded by this

  public JettyClient(String threadName) {
    this.threadName = threadName;
  }

  /** The started client. */
  synchronized HttpClient get() {
    if (closed) {
      throw CallError.of(ErrorCode.UNAVAILABLE, "the OpenAPI source is closed");
    }
    if (client == null) {
      QueuedThreadPool threads = new QueuedThreadPool();
      threads.setName(threadName);
      threads.setDaemon(true);
      // Idle threads go after 30 s: a source that is rarely called keeps few threads.
      threads.setMinThreads(2);
      threads.setIdleTimeout(30_000);
      HttpClient http = new HttpClient();
      http.setExecutor(threads);
      http.setScheduler(new ScheduledExecutorScheduler(threadName + "-scheduler", true));
      // Redirects are followed by HttpOperation, same-origin only, so credentials stay put.
      http.setFollowRedirects(false);
      http.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "operations-java"));
      // Jetty opens at most 64 connections to a service and queues the rest, refusing past 1,024
      // queued: a caller with more calls in flight than that got failures the JDK client never
      // gave. Each queued call is bounded by its own timeout, so a deep queue cannot hang.
      http.setMaxRequestsQueuedPerDestination(MAX_QUEUED);
      // As with the JDK client: no Accept-Encoding sent, so bodies arrive as the service sends
      // them (the cap counts what we read), and no cookies kept between calls, which would leak
      // one call's session into the next.
      http.getContentDecoderFactories().clear();
      http.setHttpCookieStore(new HttpCookieStore.Empty());
      try {
        http.start();
      } catch (Exception e) {
        throw CallError.of(ErrorCode.UNAVAILABLE, "could not start the HTTP client: " + e, e);
      }
      client = http;
    }
    return client;
  }

  /** Stops the client: open exchanges fail, later calls fail with UNAVAILABLE. */
  @Override
  public void close() {
    HttpClient http;
    synchronized (this) {
      closed = true;
      http = client;
      client = null;
    }
    if (http != null) {
      try {
        http.stop();
      } catch (Exception e) {
        // Stopping a client only closes its connections and threads: nothing left to do.
      }
    }
  }
}
