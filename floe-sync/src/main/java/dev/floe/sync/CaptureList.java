package dev.floe.sync;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The CDC source's table list for a selection: every table of each database the {@code --tables}
 * patterns can match, not only the tables they match.
 *
 * <p>Why so broad: the source (Flink CDC over Debezium) keeps the definitions of the tables it
 * captures and nothing else. A table renamed from a name it does not capture to one the sync takes
 * arrives without columns, and the source cannot decode its rows (docs/schema-changes.md, "Renamed
 * tables"); a table renamed from a synced name to one it does not capture arrives not at all.
 * Capturing the databases whole makes both arrive like any other DDL, and {@link SyncTargets}
 * decides in Floe which tables are synced ({@link ChangeDeserializer} drops the rest first thing).
 *
 * <p>The database part of a pattern is found syntactically: in each alternative at the pattern's
 * top level ({@code a\.x|b\.y}), what comes before the first {@code \.} outside groups and
 * character classes that no quantifier follows; the capture is that part followed by {@code \..*},
 * which matches every name the alternative matches, and more. A pattern whose parts cannot be told
 * apart this way (no top-level {@code \.} in an alternative, as in {@code .*} or {@code
 * shop.items}; a {@code \Q} quote; inline flags {@code (?x)} for the whole pattern) is captured as
 * given: renames into it from an uncaptured name stay unsynced, as before.
 */
final class CaptureList {

  private CaptureList() {}

  /**
   * Debezium's {@code table.include.list} for these include patterns: it splits the list at commas
   * (an escaped {@code \,} stays in its pattern) and matches without regard to case.
   */
  static String of(List<String> includes) {
    Set<String> captures = new LinkedHashSet<>();
    for (String include : includes) {
      captures.add(capture(include));
    }
    return String.join(",", captures.stream().map(pattern -> pattern.replace(",", "\\,")).toList());
  }

  /** The capture of one include pattern: its databases whole, or the pattern itself. */
  static String capture(String include) {
    Optional<List<String>> databases = databaseParts(include);
    if (databases.isEmpty()) {
      return include;
    }
    List<String> parts = databases.get();
    return parts.size() == 1 ? parts.get(0) + "\\..*" : "(?:" + String.join("|", parts) + ")\\..*";
  }

  /**
   * The database part of each top-level alternative of a pattern, or empty when one of them has
   * none that can be told apart.
   */
  static Optional<List<String>> databaseParts(String pattern) {
    if (pattern.contains("\\Q")) {
      return Optional.empty();
    }
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int classDepth = 0;
    int alternativeStart = 0;
    int split = -1;
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\') {
        if (i + 1 < pattern.length()
            && pattern.charAt(i + 1) == '.'
            && depth == 0
            && classDepth == 0
            && split < 0
            && !quantified(pattern, i + 2)) {
          split = i;
        }
        i++; // the escaped character
        continue;
      }
      if (classDepth > 0) {
        if (c == '[') {
          classDepth++;
        } else if (c == ']') {
          classDepth--;
        }
        continue;
      }
      switch (c) {
        case '[' -> {
          classDepth = 1;
          // a ']' (or '^]') right after the opening is a literal
          if (i + 1 < pattern.length() && pattern.charAt(i + 1) == '^') {
            i++;
          }
          if (i + 1 < pattern.length() && pattern.charAt(i + 1) == ']') {
            i++;
          }
        }
        case '(' -> {
          if (depth == 0 && inlineFlags(pattern, i)) {
            return Optional.empty();
          }
          depth++;
        }
        case ')' -> depth--;
        case '|' -> {
          if (depth == 0) {
            if (split < 0) {
              return Optional.empty();
            }
            parts.add(pattern.substring(alternativeStart, split));
            alternativeStart = i + 1;
            split = -1;
          }
        }
        default -> {
          // a literal or a quantifier: part of the current alternative
        }
      }
    }
    if (split < 0) {
      return Optional.empty();
    }
    parts.add(pattern.substring(alternativeStart, split));
    return Optional.of(parts);
  }

  /** Whether a quantifier starts at {@code at}: then the dot before it may be missing. */
  private static boolean quantified(String pattern, int at) {
    return at < pattern.length() && "?*+{".indexOf(pattern.charAt(at)) >= 0;
  }

  /** Whether the group opening at {@code open} is {@code (?flags)}, which sets flags onward. */
  private static boolean inlineFlags(String pattern, int open) {
    int i = open + 1;
    if (i >= pattern.length() || pattern.charAt(i) != '?') {
      return false;
    }
    i++;
    int start = i;
    while (i < pattern.length()
        && (Character.isLetter(pattern.charAt(i)) || pattern.charAt(i) == '-')) {
      i++;
    }
    return i > start && i < pattern.length() && pattern.charAt(i) == ')';
  }
}
