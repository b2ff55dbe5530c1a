package dev.alkdev.operations.transport.websocket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP relay in front of a server, so that a test can cut one client off the network
 * ({@link #sever()}: every relayed socket closed, new connections refused) while the server and its
 * other clients carry on.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean severed;
  // Connections relayed so far stop carrying bytes when frozen; later ones are relayed as usual.
  private final List<java.util.concurrent.atomic.AtomicBoolean> freezes =
      new CopyOnWriteArrayList<>();

  private TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "tcp-proxy-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  static TcpProxy to(int targetPort) throws IOException {
    return new TcpProxy(targetPort);
  }

  String url() {
    return "ws://127.0.0.1:" + listener.getLocalPort() + "/ws";
  }

  /** Cuts every relayed connection and refuses new ones, for good. */
  void sever() {
    severed = true;
    closeQuietly(listener);
    sockets.forEach(TcpProxy::closeQuietly);
  }

  /**
   * Stops relaying on every connection made so far, in both directions, but keeps their sockets
   * open: a network that silently stopped carrying them (a half-open connection on both ends). New
   * connections are relayed as usual.
   */
  void freeze() {
    freezes.forEach(f -> f.set(true));
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
        sockets.add(client);
        sockets.add(server);
        if (severed) {
          sever();
          return;
        }
        java.util.concurrent.atomic.AtomicBoolean frozen =
            new java.util.concurrent.atomic.AtomicBoolean();
        freezes.add(frozen);
        pump(client, server, frozen);
        pump(server, client, frozen);
      } catch (IOException e) {
        if (severed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to, java.util.concurrent.atomic.AtomicBoolean frozen) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
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
}
