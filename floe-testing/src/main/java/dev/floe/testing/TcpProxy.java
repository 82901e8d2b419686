package dev.floe.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP forwarder on a free loopback port in front of a real server, for tests of what Floe does
 * when that server goes away: {@link #refuseFrom(int)} makes the Nth connection from now on (and
 * every later one) close as soon as it is accepted, as a server that just stopped would, while the
 * server itself keeps running for the test's own checks.
 */
public final class TcpProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final AtomicInteger accepted = new AtomicInteger();
  private volatile int refuseFrom = Integer.MAX_VALUE;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  private TcpProxy(ServerSocket listener, InetSocketAddress target) {
    this.listener = listener;
    this.target = target;
    this.acceptor = new Thread(this::accept, "tcp-proxy-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Starts forwarding loopback connections to {@code host:port}. */
  public static TcpProxy to(String host, int port) {
    try {
      ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      return new TcpProxy(listener, new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a loopback port for the proxy", e);
    }
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** Connections accepted so far, refused ones included. */
  public int accepted() {
    return accepted.get();
  }

  /**
   * From the {@code n}th connection after this call on (1 = the next one), connections are closed
   * at once; connections already forwarding go on. {@code Integer.MAX_VALUE} forwards again.
   */
  public void refuseFrom(int n) {
    refuseFrom = n == Integer.MAX_VALUE ? n : accepted.get() + n;
  }

  private void accept() {
    while (!listener.isClosed()) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException closed) {
        return;
      }
      int number = accepted.incrementAndGet();
      if (number >= refuseFrom) {
        closeQuietly(client);
        continue;
      }
      try {
        Socket server = new Socket(target.getAddress(), target.getPort());
        open.add(client);
        open.add(server);
        pipe(client, server);
        pipe(server, client);
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, read);
                  out.flush();
                }
              } catch (IOException ended) {
                // one side went away: close both below
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "tcp-proxy-pipe");
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException ignored) {
      // already closed
    }
    open.forEach(TcpProxy::closeQuietly);
  }
}
