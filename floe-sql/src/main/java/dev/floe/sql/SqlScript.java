package dev.floe.sql;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A SQL text split into statements at {@code ;}. A semicolon inside a string literal ({@code
 * '...'}), a quoted identifier ({@code "..."} or {@code `...`}), a line comment ({@code -- ...}) or
 * a block comment ({@code /* ... *}{@code /}) does not end a statement. Statements holding nothing
 * but whitespace and comments are dropped.
 *
 * @param statements the complete statements, each without its {@code ;}, trimmed
 * @param remainder the text after the last {@code ;} (an unfinished statement, or blank)
 */
public record SqlScript(List<String> statements, String remainder) {

  public SqlScript {
    statements = List.copyOf(requireNonNull(statements, "statements is null"));
    requireNonNull(remainder, "remainder is null");
  }

  /** Splits {@code text}; what follows the last {@code ;} is the {@link #remainder()}. */
  public static SqlScript parse(String text) {
    requireNonNull(text, "text is null");
    List<String> statements = new ArrayList<>();
    int start = 0;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int close = text.indexOf(c, i + 1);
        i = close < 0 ? text.length() : close + 1; // a doubled quote reopens: same effect
      } else if (c == '-' && text.startsWith("--", i)) {
        int newline = text.indexOf('\n', i);
        i = newline < 0 ? text.length() : newline + 1;
      } else if (c == '/' && text.startsWith("/*", i)) {
        int close = text.indexOf("*/", i + 2);
        i = close < 0 ? text.length() : close + 2;
      } else if (c == ';') {
        String statement = text.substring(start, i).strip();
        if (!isBlank(statement)) {
          statements.add(statement);
        }
        i++;
        start = i;
      } else {
        i++;
      }
    }
    return new SqlScript(statements, text.substring(start));
  }

  /** Every statement of a whole script: the complete ones and an unterminated last one. */
  public List<String> allStatements() {
    if (isBlank(remainder)) {
      return statements;
    }
    List<String> all = new ArrayList<>(statements);
    all.add(remainder.strip());
    return List.copyOf(all);
  }

  /** True when the text holds only whitespace and comments. */
  public static boolean isBlank(String text) {
    return skipIgnorable(text, 0) >= text.length();
  }

  /**
   * Up to {@code count} leading keywords, upper case, skipping whitespace, comments and opening
   * parentheses: {@code "(select 1)"} gives {@code [SELECT]}.
   */
  static List<String> leadingWords(String text, int count) {
    List<String> words = new ArrayList<>();
    int i = 0;
    while (words.size() < count) {
      i = skipIgnorable(text, i);
      while (i < text.length() && text.charAt(i) == '(' && words.isEmpty()) {
        i = skipIgnorable(text, i + 1);
      }
      int end = i;
      while (end < text.length()
          && (Character.isLetter(text.charAt(end)) || text.charAt(end) == '_')) {
        end++;
      }
      if (end == i) {
        break;
      }
      words.add(text.substring(i, end).toUpperCase(Locale.ROOT));
      i = end;
    }
    return words;
  }

  /** The statement on one line, cut to {@code maxLength} characters: for messages. */
  public static String abbreviate(String statement, int maxLength) {
    String oneLine = statement.strip().replaceAll("\\s+", " ");
    return oneLine.length() <= maxLength ? oneLine : oneLine.substring(0, maxLength - 3) + "...";
  }

  private static int skipIgnorable(String text, int from) {
    int i = from;
    while (i < text.length()) {
      if (Character.isWhitespace(text.charAt(i))) {
        i++;
      } else if (text.startsWith("--", i)) {
        int newline = text.indexOf('\n', i);
        i = newline < 0 ? text.length() : newline + 1;
      } else if (text.startsWith("/*", i)) {
        int close = text.indexOf("*/", i + 2);
        i = close < 0 ? text.length() : close + 2;
      } else {
        break;
      }
    }
    return i;
  }
}
