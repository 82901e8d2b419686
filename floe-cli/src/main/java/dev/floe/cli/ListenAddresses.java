package dev.floe.cli;

import dev.floe.core.config.ListenAddress;
import dev.floe.core.error.FloeException;

/** Parses HOST:PORT given on the command line. */
final class ListenAddresses {

  private ListenAddresses() {}

  static ListenAddress parse(String option, String text) {
    int colon = text.lastIndexOf(':');
    if (colon > 0 && colon < text.length() - 1) {
      try {
        int port = Integer.parseInt(text.substring(colon + 1));
        if (port >= 0 && port <= 65535) {
          return new ListenAddress(text.substring(0, colon), port);
        }
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    throw FloeException.badInput(
        option
            + " must be HOST:PORT with a port from 0 to 65535, e.g. 127.0.0.1:8420; got '"
            + text
            + "'.");
  }
}
