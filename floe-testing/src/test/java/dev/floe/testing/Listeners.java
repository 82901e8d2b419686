package dev.floe.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What listens on a port of this machine, read from /proc/net/tcp(6) and by connecting. */
final class Listeners {

  private Listeners() {}

  /** The local addresses with a listening TCP socket on the port ("127.0.0.1" for loopback). */
  static List<String> addresses(int port) throws IOException {
    String portHex = String.format(Locale.ROOT, ":%04X", port);
    List<String> addresses = new ArrayList<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> rows = Files.readAllLines(Path.of(table));
      for (String row : rows.subList(1, rows.size())) {
        String[] fields = row.trim().split("\\s+");
        boolean listening = fields[3].equals("0A");
        if (listening && fields[1].endsWith(portHex)) {
          String address = fields[1].substring(0, fields[1].indexOf(':'));
          // 127.0.0.1, as IPv4 or as an IPv4-mapped IPv6 address (::ffff:127.0.0.1)
          boolean loopback =
              address.equals("0100007F") || address.equals("0000000000000000FFFF00000100007F");
          addresses.add(loopback ? "127.0.0.1" : address);
        }
      }
    }
    return addresses;
  }

  static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException refused) {
      return false;
    }
  }
}
