package dev.floe.core.config;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Memory sizes as the JVM's {@code -Xmx} takes them: a number of bytes, or a number with {@code k},
 * {@code m} or {@code g} (powers of 1024, either case): 65536, 512k, 512m, 2g.
 */
public final class SizeText {

  private static final Pattern SIZE = Pattern.compile("(\\d+)([kmg]?)");

  private SizeText() {}

  /** The size in bytes, or empty when the text is not one (or does not fit in a long). */
  public static Optional<Long> parse(String text) {
    Matcher matcher = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!matcher.matches()) {
      return Optional.empty();
    }
    int shift =
        switch (matcher.group(2)) {
          case "k" -> 10;
          case "m" -> 20;
          case "g" -> 30;
          default -> 0;
        };
    try {
      long amount = Long.parseLong(matcher.group(1));
      return Optional.of(Math.multiplyExact(amount, 1L << shift));
    } catch (ArithmeticException | NumberFormatException tooLarge) {
      return Optional.empty();
    }
  }

  /** The shortest exact spelling: 2g, 1536m, 512k, 1000 (bytes). */
  public static String format(long bytes) {
    for (int shift = 30; shift > 0; shift -= 10) {
      long unit = 1L << shift;
      if (bytes != 0 && bytes % unit == 0) {
        return bytes / unit + (shift == 30 ? "g" : shift == 20 ? "m" : "k");
      }
    }
    return Long.toString(bytes);
  }
}
