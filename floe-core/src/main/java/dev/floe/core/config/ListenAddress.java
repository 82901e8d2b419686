package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a Floe service listens: {@code HOST:PORT}, with an IPv6 host in brackets ({@code
 * [::1]:8420}).
 *
 * @param host a host name, an IPv4 address or an IPv6 address (without brackets)
 * @param port 1 to 65535 (0, a free port chosen at bind time, only from code: tests)
 */
public record ListenAddress(String host, int port) {

  private static final Pattern NAME_OR_IPV4 = Pattern.compile("([A-Za-z0-9._-]+):(\\d{1,5})");
  private static final Pattern BRACKETED_IPV6 =
      Pattern.compile("\\[([0-9A-Fa-f:.]+)\\]:(\\d{1,5})");
  private static final Pattern IPV4 =
      Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

  public ListenAddress {
    requireNonNull(host, "host is null");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host is blank");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is not between 1 and 65535");
    }
  }

  /**
   * The address written as {@code HOST:PORT} or {@code [IPV6]:PORT}; empty when the text is not one
   * (no host, a port outside 1 to 65535, an IPv6 address without brackets).
   */
  public static Optional<ListenAddress> parse(String text) {
    String value = text.trim();
    Matcher matcher = NAME_OR_IPV4.matcher(value);
    if (!matcher.matches()) {
      matcher = BRACKETED_IPV6.matcher(value);
      if (!matcher.matches() || ipv6Groups(matcher.group(1)).isEmpty()) {
        return Optional.empty();
      }
    }
    int port = Integer.parseInt(matcher.group(2));
    if (port < 1 || port > 65535) {
      return Optional.empty();
    }
    return Optional.of(new ListenAddress(matcher.group(1), port));
  }

  /** Whether only this machine can connect: localhost, 127.0.0.0/8 or ::1. */
  public boolean isLoopback() {
    if (host.toLowerCase(Locale.ROOT).equals("localhost")) {
      return true;
    }
    if (host.contains(":")) {
      return ipv6Groups(host).map(ListenAddress::isIpv6Loopback).orElse(false);
    }
    Matcher ipv4 = IPV4.matcher(host);
    return ipv4.matches() && Integer.parseInt(ipv4.group(1)) == 127;
  }

  /** {@code HOST:PORT}, with an IPv6 host in brackets. */
  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  private static boolean isIpv6Loopback(int[] groups) {
    for (int i = 0; i < 5; i++) {
      if (groups[i] != 0) {
        return false;
      }
    }
    // ::1, or 127.x.x.x mapped into IPv6 (::ffff:127.0.0.1)
    boolean one = groups[5] == 0 && groups[6] == 0 && groups[7] == 1;
    boolean mappedIpv4Loopback = groups[5] == 0xffff && groups[6] >> 8 == 127;
    return one || mappedIpv4Loopback;
  }

  /** The eight 16-bit groups of an IPv6 address; empty when the text is not one. */
  private static Optional<int[]> ipv6Groups(String text) {
    int gap = text.indexOf("::");
    if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
      return Optional.empty();
    }
    String head = gap < 0 ? text : text.substring(0, gap);
    String tail = gap < 0 ? "" : text.substring(gap + 2);
    Optional<int[]> headGroups = groups(head, gap < 0);
    Optional<int[]> tailGroups = groups(tail, true);
    if (headGroups.isEmpty() || tailGroups.isEmpty()) {
      return Optional.empty();
    }
    int[] first = headGroups.get();
    int[] last = tailGroups.get();
    int count = first.length + last.length;
    if (gap < 0 ? count != 8 : count > 7) {
      return Optional.empty();
    }
    int[] all = new int[8];
    System.arraycopy(first, 0, all, 0, first.length);
    System.arraycopy(last, 0, all, 8 - last.length, last.length);
    return Optional.of(all);
  }

  /** Colon-separated hex groups; the last may be a dotted IPv4 address (two groups). */
  private static Optional<int[]> groups(String text, boolean mayEndInIpv4) {
    if (text.isEmpty()) {
      return Optional.of(new int[0]);
    }
    String[] parts = text.split(":", -1);
    int[] groups = new int[parts.length + 1];
    int count = 0;
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      Matcher ipv4 = IPV4.matcher(part);
      if (mayEndInIpv4 && i == parts.length - 1 && ipv4.matches()) {
        int[] octets = new int[4];
        for (int octet = 0; octet < 4; octet++) {
          octets[octet] = Integer.parseInt(ipv4.group(octet + 1));
          if (octets[octet] > 255) {
            return Optional.empty();
          }
        }
        groups[count++] = octets[0] << 8 | octets[1];
        groups[count++] = octets[2] << 8 | octets[3];
      } else if (part.matches("[0-9A-Fa-f]{1,4}")) {
        groups[count++] = Integer.parseInt(part, 16);
      } else {
        return Optional.empty();
      }
    }
    return Optional.of(Arrays.copyOf(groups, count));
  }
}
