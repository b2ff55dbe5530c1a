package dev.alkdev.operations.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP relay in front of a broker (a NATS or Redis server, a hub), so that a test can
 * make one client's network fail while the broker and its other clients carry on: cut it for good
 * ({@link #sever()}), cut the connections of the moment and let the client reconnect ({@link
 * #dropConnections()}), stop one direction of one connection ({@link #pause(int)}), or let every
 * connection go silent with its sockets open ({@link #freeze()}). Closing it severs it.
 */
public final class TcpProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int targetPort;
  private final List<Relayed> relayed = new CopyOnWriteArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private volatile boolean severed;
  private volatile int pausedConnection = -1; // the index of the accepted connection held

  private TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "tcp-proxy-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A relay to {@code targetPort} on the loopback address, listening on a free port. */
  public static TcpProxy to(int targetPort) throws IOException {
    return new TcpProxy(targetPort);
  }

  /** The port clients connect to. */
  public int port() {
    return listener.getLocalPort();
  }

  /** {@code scheme://127.0.0.1:port}, the address clients connect to as a URL. */
  public String url(String scheme) {
    return scheme + "://127.0.0.1:" + port();
  }

  /** Connections accepted so far. */
  public int acceptedConnections() {
    return accepted.get();
  }

  /** Cuts every relayed connection and refuses new ones, for good. */
  public void sever() {
    severed = true;
    closeQuietly(listener);
    relayed.forEach(Relayed::close);
  }

  /**
   * Cuts every connection relayed so far, as a network failure or a broker restart would, and goes
   * on relaying new ones: the client sees its connection drop and can reconnect.
   */
  public void dropConnections() {
    for (Relayed connection : relayed) {
      connection.close();
      relayed.remove(connection);
    }
  }

  /**
   * Stops relaying what the broker sends on the {@code index}-th connection accepted (from 0): its
   * client reads nothing more, as a stalled reader would, and the broker's buffers for it fill.
   * Until {@link #resume()}.
   */
  public void pause(int index) {
    pausedConnection = index;
  }

  public void resume() {
    pausedConnection = -1;
  }

  /**
   * Stops relaying on every connection made so far, in both directions, but keeps their sockets
   * open: a network that silently stopped carrying them (a half-open connection on both ends). New
   * connections are relayed as usual.
   */
  public void freeze() {
    relayed.forEach(connection -> connection.frozen.set(true));
  }

  @Override
  public void close() {
    sever();
  }

  private void accept() {
    while (!severed) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        Relayed connection = new Relayed(client, server);
        relayed.add(connection);
        if (severed) {
          sever();
          return;
        }
        int index = accepted.getAndIncrement();
        pump(client, server, -1, connection.frozen);
        pump(server, client, index, connection.frozen);
      } catch (IOException e) {
        if (severed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to, int index, AtomicBoolean frozen) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while (true) {
                  while (index >= 0 && pausedConnection == index && !severed) {
                    Thread.sleep(5);
                  }
                  if ((n = in.read(buffer)) < 0) {
                    break;
                  }
                  while (frozen.get() && !severed) {
                    Thread.sleep(50); // hold the bytes, read nothing more: the peer hears silence
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException ended) {
                // Either side closed: close both below.
              } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "tcp-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception ignored) {
      // already closed
    }
  }

  /** One relayed connection: the client's socket and the broker's. */
  private static final class Relayed {
    final Socket client;
    final Socket server;
    final AtomicBoolean frozen = new AtomicBoolean();

    Relayed(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    void close() {
      closeQuietly(client);
      closeQuietly(server);
    }
  }
}
