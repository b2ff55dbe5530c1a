package dev.alkdev.operations.transport.websocket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A WebSocket client on a plain TCP socket that, after the upgrade, never reads again: the worst
 * peer a hub can have. Its receive buffer is as small as the kernel allows, so what the hub sends
 * backs up in the hub at once. Writes block once the hub stops reading (back-pressure), so a flood
 * runs on its own thread and ends when the socket is closed.
 */
final class DeafSocket implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;

  private DeafSocket(Socket socket) throws IOException {
    this.socket = socket;
    this.out = socket.getOutputStream();
  }

  static DeafSocket open(URI uri) throws IOException {
    Socket socket = new Socket();
    socket.setReceiveBufferSize(1024); // before connect: the window it advertises stays small
    socket.setSoTimeout(10_000); // for the upgrade's answer only
    socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 10_000);
    byte[] nonce = new byte[16];
    ThreadLocalRandom.current().nextBytes(nonce);
    String request =
        "GET "
            + uri.getPath()
            + " HTTP/1.1\r\nHost: "
            + uri.getHost()
            + ":"
            + uri.getPort()
            + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Key: "
            + Base64.getEncoder().encodeToString(nonce)
            + "\r\nSec-WebSocket-Protocol: "
            + WebSocketHub.SUBPROTOCOL
            + "\r\n\r\n";
    OutputStream out = socket.getOutputStream();
    out.write(request.getBytes(StandardCharsets.US_ASCII));
    out.flush();
    // Reads the answer's head byte by byte, so that nothing after it (the HELLO) is read.
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        socket.close();
        throw new IOException("the hub closed the upgrade: " + head);
      }
      head.append((char) c);
    }
    if (!head.toString().startsWith("HTTP/1.1 101")) {
      socket.close();
      throw new IOException("the upgrade was refused: " + head);
    }
    return new DeafSocket(socket);
  }

  /** Sends one masked binary frame; blocks while the hub is not reading. */
  void send(String frame) throws IOException {
    send(frame.getBytes(StandardCharsets.UTF_8));
  }

  void send(byte[] payload) throws IOException {
    int length = payload.length;
    byte[] header;
    if (length < 126) {
      header = new byte[] {(byte) 0x82, (byte) (0x80 | length)};
    } else if (length < 65536) {
      header = new byte[] {(byte) 0x82, (byte) (0x80 | 126), (byte) (length >> 8), (byte) length};
    } else {
      header = new byte[10];
      header[0] = (byte) 0x82;
      header[1] = (byte) (0x80 | 127);
      for (int i = 0; i < 8; i++) {
        header[9 - i] = (byte) ((long) length >> (8 * i));
      }
    }
    byte[] frame = new byte[header.length + 4 + length];
    System.arraycopy(header, 0, frame, 0, header.length);
    // A zero mask: the payload goes as it is (masking is required, its key is not secret here).
    System.arraycopy(payload, 0, frame, header.length + 4, length);
    out.write(frame);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
