package dev.floe.core.sync;

import java.util.ArrayList;
import java.util.List;

/** A comma-separated list whose items may hold commas in parentheses: {@code bucket(16, id),a}. */
final class CommaList {

  private CommaList() {}

  /** The items between the commas outside parentheses, untrimmed; one item when none. */
  static List<String> split(String text) {
    List<String> items = new ArrayList<>();
    int depth = 0;
    StringBuilder current = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      }
      if (c == ',' && depth == 0) {
        items.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    items.add(current.toString());
    return items;
  }
}
