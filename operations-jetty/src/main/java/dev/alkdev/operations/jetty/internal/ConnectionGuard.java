package dev.alkdev.operations.jetty.internal;

import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.serving.ConnectionLimits;
import dev.alkdev.operations.serving.ConnectionStats;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@link ConnectionLimits} to a Jetty server, the same way for every server of the project.
 *
 * <ul>
 *   <li>The cap on open connections is Jetty's {@link NetworkConnectionLimit}: at the cap the
 *       connector stops accepting until one closes.
 *   <li>The cap per remote address: a connection listener counts the connections open per address
 *       and closes one over the cap as soon as it opens.
 *   <li>The request head's total time and the body's least rate are what Jetty lacks (each byte
 *       resets its idle timeout, and its parser keeps no time). One sweep per server, on the
 *       connector's scheduler (no thread of its own), reads each HTTP/1 connection's byte count (a
 *       public counter of Jetty's connections) against what the handler wrapper ({@link #wrap})
 *       saw: bytes that arrived since the last request ended and no request handled yet are a head
 *       in progress, timed from the sweep that first saw them; a request whose body is still due
 *       must have received its bytes at the least rate, on average since its head, once the grace
 *       has passed. A connection over either is closed. A request with no body, a response being
 *       streamed and a connection upgraded to WebSocket are never judged by these rules.
 * </ul>
 *
 * <p>Refusals and cuts are counted ({@link #stats}) and logged, rate limited, with the address.
 */
public final class ConnectionGuard implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
  private static final RateLimitedLog REFUSED = RateLimitedLog.of(LOG);

  private final ConnectionLimits limits;
  private final String serverName;
  private final ServerConnector connector;
  private final NetworkConnectionLimit networkLimit;
  private final long sweepNanos;
  private final ConcurrentHashMap<EndPoint, InetAddress> tracked = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<EndPoint, Watch> watches = new ConcurrentHashMap<>();
  private final LongAdder refusedPerClient = new LongAdder();
  private final LongAdder cutSlowHead = new LongAdder();
  private final LongAdder cutSlowBody = new LongAdder();
  private volatile boolean stopped;

  private ConnectionGuard(
      String serverName, Server server, ServerConnector connector, ConnectionLimits limits) {
    this.serverName = serverName;
    this.connector = connector;
    this.limits = limits;
    this.networkLimit = new NetworkConnectionLimit(limits.maxConnections(), connector);
    long shortest =
        Math.min(limits.requestHeadTimeout().toNanos(), limits.requestBodyGrace().toNanos());
    // Four looks per shortest limit: a connection is cut at most a quarter late.
    this.sweepNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(25), shortest / 4);
    server.addBean(networkLimit);
    connector.addEventListener(this); // given to every connection the connector makes
  }

  /**
   * Installs the limits on {@code connector} of {@code server} before it starts; wrap the server's
   * handler with {@link #wrap}, and call {@link #start} once the server has started.
   *
   * @param serverName what the log says refused or cut the connection ("HTTP gateway")
   */
  public static ConnectionGuard install(
      String serverName, Server server, ServerConnector connector, ConnectionLimits limits) {
    return new ConnectionGuard(
        Objects.requireNonNull(serverName, "serverName"),
        Objects.requireNonNull(server, "server"),
        Objects.requireNonNull(connector, "connector"),
        Objects.requireNonNull(limits, "limits"));
  }

  /** The server's handler, seen by the guard: when a request's head has arrived, and its end. */
  public Handler wrap(Handler handler) {
    return new Handler.Wrapper(handler) {
      @Override
      public boolean handle(Request request, Response response, Callback callback)
          throws Exception {
        Connection connection = request.getConnectionMetaData().getConnection();
        Watch watch = connection != null ? watch(connection) : null;
        if (watch == null) {
          return super.handle(request, response, callback);
        }
        boolean hasBody =
            request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
        watch.requestStarted(connection.getBytesIn(), hasBody);
        Request seen = hasBody ? new BodyWatch(request, watch) : request;
        Callback ended =
            new Callback() {
              @Override
              public void succeeded() {
                watch.requestEnded(connection.getBytesIn());
                callback.succeeded();
              }

              @Override
              public void failed(Throwable failure) {
                watch.requestEnded(connection.getBytesIn());
                callback.failed(failure);
              }

              @Override
              public InvocationType getInvocationType() {
                return callback.getInvocationType();
              }
            };
        boolean handled;
        try {
          handled = super.handle(seen, response, ended);
        } catch (Throwable e) {
          watch.requestEnded(connection.getBytesIn());
          throw e;
        }
        if (!handled) {
          watch.requestEnded(connection.getBytesIn());
        }
        return handled;
      }
    };
  }

  /** Starts the sweep; call once the server has started. */
  public void start() {
    schedule();
  }

  /** Stops the sweep; the server's own stop closes the connections. */
  public void stop() {
    stopped = true;
  }

  /** What the limits saw and did so far. */
  public ConnectionStats stats() {
    return new ConnectionStats(
        networkLimit.getNetworkConnectionCount(),
        limits.maxConnections(),
        refusedPerClient.sum(),
        cutSlowHead.sum(),
        cutSlowBody.sum());
  }

  // ------------------------------------------------------------------ per address

  @Override
  public void onOpened(Connection connection) {
    EndPoint endPoint = connection.getEndPoint();
    InetAddress address = addressOf(endPoint.getRemoteSocketAddress());
    if (address == null || tracked.putIfAbsent(endPoint, address) != null) {
      return; // not a network connection, or the same one upgraded
    }
    int open = perAddress.merge(address, 1, Integer::sum);
    if (open > limits.maxConnectionsPerClient()) {
      refusedPerClient.increment();
      REFUSED.warn(
          "{} closed a connection from {}: it has {} open (maxConnectionsPerClient)",
          serverName,
          address.getHostAddress(),
          open - 1);
      endPoint.close();
    }
  }

  @Override
  public void onClosed(Connection connection) {
    EndPoint endPoint = connection.getEndPoint();
    if (!endPoint.isOpen()) {
      forget(endPoint);
    }
  }

  private void forget(EndPoint endPoint) {
    watches.remove(endPoint);
    InetAddress address = tracked.remove(endPoint);
    if (address != null) {
      perAddress.computeIfPresent(address, (a, n) -> n > 1 ? n - 1 : null);
    }
  }

  private static InetAddress addressOf(SocketAddress address) {
    return address instanceof InetSocketAddress inet ? inet.getAddress() : null;
  }

  // ------------------------------------------------------------------ head and body

  /** The watch of an HTTP/1 connection; none for other protocols (a WebSocket after upgrade). */
  private Watch watch(Connection connection) {
    if (!(connection instanceof ConnectionMetaData)) {
      return null;
    }
    return watches.computeIfAbsent(connection.getEndPoint(), e -> new Watch());
  }

  private void schedule() {
    if (stopped || !connector.isRunning()) {
      return;
    }
    Scheduler scheduler = connector.getScheduler();
    scheduler.schedule(this::sweep, sweepNanos, TimeUnit.NANOSECONDS);
  }

  private void sweep() {
    try {
      long now = System.nanoTime();
      for (EndPoint endPoint : connector.getConnectedEndPoints()) {
        Connection connection = endPoint.getConnection();
        if (connection == null) {
          continue;
        }
        Watch watch = watch(connection);
        if (watch == null) {
          watches.remove(endPoint);
          continue;
        }
        String cut = watch.judge(connection.getBytesIn(), now, limits);
        if (cut != null) {
          (cut.equals(Watch.HEAD) ? cutSlowHead : cutSlowBody).increment();
          REFUSED.warn(
              "{} closed a connection from {}: {}",
              serverName,
              endPoint.getRemoteSocketAddress(),
              cut.equals(Watch.HEAD)
                  ? "its request head took longer than "
                      + limits.requestHeadTimeout().toMillis()
                      + " ms (requestHeadTimeout)"
                  : "its request body arrived slower than "
                      + limits.minRequestBytesPerSecond()
                      + " bytes/s (minRequestBytesPerSecond)");
          endPoint.close();
        }
      }
      // Connections that closed without a word to the listener (upgraded ones) leave no count.
      tracked.keySet().removeIf(endPoint -> !endPoint.isOpen() && forgetCount(endPoint));
      watches.keySet().removeIf(endPoint -> !endPoint.isOpen());
    } catch (RuntimeException e) {
      LOG.warn("{}: the connection sweep failed", serverName, e);
    } finally {
      schedule();
    }
  }

  private boolean forgetCount(EndPoint endPoint) {
    InetAddress address = tracked.get(endPoint);
    if (address != null) {
      perAddress.computeIfPresent(address, (a, n) -> n > 1 ? n - 1 : null);
    }
    return true;
  }

  /** Open connections per address now, for tests. */
  int openFrom(InetAddress address) {
    return perAddress.getOrDefault(address, 0);
  }

  /** The request a handler reads its body from: says when the body has all arrived. */
  private static final class BodyWatch extends Request.Wrapper {
    private final Watch watch;

    BodyWatch(Request request, Watch watch) {
      super(request);
      this.watch = watch;
    }

    @Override
    public org.eclipse.jetty.io.Content.Chunk read() {
      org.eclipse.jetty.io.Content.Chunk chunk = super.read();
      if (chunk != null
          && (chunk.isLast() || org.eclipse.jetty.io.Content.Chunk.isFailure(chunk))) {
        watch.bodyDone();
      }
      return chunk;
    }
  }

  /** One HTTP/1 connection's timing: a head in progress, or a request's body still due. */
  static final class Watch {
    static final String HEAD = "head";
    static final String BODY = "body";

    private long bytesAtRest; // bytes in when the last request ended (or the connection opened)
    private long headSeenAt; // when a sweep first saw bytes of a head in progress; 0 when none
    private int active; // requests being handled
    private boolean bodyDue;
    private long bodyFrom; // bytes in when the head was handled
    private long bodySince;

    synchronized void requestStarted(long bytesIn, boolean hasBody) {
      active++;
      headSeenAt = 0;
      bodyDue = hasBody;
      bodyFrom = bytesIn;
      bodySince = System.nanoTime();
    }

    synchronized void bodyDone() {
      bodyDue = false;
    }

    synchronized void requestEnded(long bytesIn) {
      if (active > 0) {
        active--;
      }
      bodyDue = false;
      bytesAtRest = bytesIn;
      headSeenAt = 0;
    }

    /** What to cut the connection for now, if anything. */
    synchronized String judge(long bytesIn, long now, ConnectionLimits limits) {
      if (active == 0) {
        if (bytesIn <= bytesAtRest) {
          headSeenAt = 0; // idle between requests: Jetty's idle timeout watches that
          return null;
        }
        if (headSeenAt == 0) {
          headSeenAt = now;
          return null;
        }
        return now - headSeenAt > limits.requestHeadTimeout().toNanos() ? HEAD : null;
      }
      if (!bodyDue || limits.minRequestBytesPerSecond() == 0) {
        return null;
      }
      long elapsed = now - bodySince;
      if (elapsed <= limits.requestBodyGrace().toNanos()) {
        return null;
      }
      double perSecond = (bytesIn - bodyFrom) / (elapsed / 1e9);
      return perSecond < limits.minRequestBytesPerSecond() ? BODY : null;
    }
  }
}
