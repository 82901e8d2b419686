package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * How MySQL orders the values of one string key column: by its collation, which is what its key
 * index and every key range condition use. The lake side must place keys in slices with the same
 * order, so the collation is reproduced in Java: a binary collation ({@code *_bin}) compares code
 * points; any other collation compares per-character weights read from the server once with {@code
 * WEIGHT_STRING} for every character of the Basic Multilingual Plane (case and accent folding, e.g.
 * {@code a = A} under {@code utf8mb4_general_ci}). PAD SPACE collations compare as if the shorter
 * value were padded with spaces. Characters outside the BMP weigh as U+FFFD, as in MySQL's
 * per-character collations. Immutable; see docs/verify.md.
 */
final class StringOrder {

  private static final int PLANE = 0x10000;

  private final String collation;
  private final boolean padSpace;

  /** per BMP code point its weight bytes; null for a binary collation */
  private final byte[][] weights;

  /** whether characters outside the BMP weigh as U+FFFD (else keys with them are refused) */
  private final boolean supplementaryAsReplacement;

  private StringOrder(
      String collation, boolean padSpace, byte[][] weights, boolean supplementaryAsReplacement) {
    this.collation = requireNonNull(collation, "collation is null");
    this.padSpace = padSpace;
    this.weights = weights;
    this.supplementaryAsReplacement = supplementaryAsReplacement;
  }

  /** Code point order (a binary collation). */
  static StringOrder binary(String collation, boolean padSpace) {
    return new StringOrder(collation, padSpace, null, true);
  }

  String collation() {
    return collation;
  }

  /** The order of a column's collation on this server (reads its character weights once). */
  static StringOrder read(Connection connection, String charset, String collation)
      throws SQLException {
    boolean padSpace = padSpace(connection, collation);
    String lower = collation.toLowerCase(Locale.ROOT);
    if (lower.endsWith("_bin") || lower.equals("binary")) {
      return binary(collation, padSpace);
    }
    checkName(charset);
    checkName(collation);
    byte[][] weights = new byte[PLANE][];
    String digits =
        "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4"
            + " UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION"
            + " ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11 UNION ALL SELECT 12 UNION ALL"
            + " SELECT 13 UNION ALL SELECT 14 UNION ALL SELECT 15)";
    // the weight of a character followed by '!' minus the weight of '!': a trailing space alone
    // would be stripped by a PAD SPACE collation
    String character = "CONVERT(CHAR(n USING utf32) USING " + charset + ")";
    String sql =
        "SELECT n, HEX(WEIGHT_STRING(CONVERT(CONCAT("
            + character
            + ", '!') USING "
            + charset
            + ") COLLATE "
            + collation
            + ")), HEX(WEIGHT_STRING(CONVERT('!' USING "
            + charset
            + ") COLLATE "
            + collation
            + ")) FROM (SELECT a.d * 4096 + b.d * 256 + c.d * 16 + e.d n FROM "
            + digits
            + " a, "
            + digits
            + " b, "
            + digits
            + " c, "
            + digits
            + " e) codes WHERE n < 55296 OR n > 57343";
    HexFormat hex = HexFormat.of();
    try (PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        int codePoint = result.getInt(1);
        String both = result.getString(2);
        String suffix = result.getString(3);
        if (both == null || suffix == null || !both.endsWith(suffix)) {
          throw FloeException.badInput(
              "Collation "
                  + collation
                  + " does not weigh characters one by one (U+"
                  + Integer.toHexString(codePoint)
                  + "); verify cannot slice a string key with it. Name another key with --key.");
        }
        weights[codePoint] = hex.parseHex(both.substring(0, both.length() - suffix.length()));
      }
    }
    return new StringOrder(
        collation, padSpace, weights, weighsAsReplacement(connection, charset, collation));
  }

  /** Whether a character outside the BMP (U+1F600) weighs as U+FFFD under the collation. */
  private static boolean weighsAsReplacement(
      Connection connection, String charset, String collation) throws SQLException {
    String sql =
        "SELECT WEIGHT_STRING(CONVERT(CHAR(128512 USING utf32) USING "
            + charset
            + ") COLLATE "
            + collation
            + ") = WEIGHT_STRING(CONVERT(CHAR(65533 USING utf32) USING "
            + charset
            + ") COLLATE "
            + collation
            + ")";
    try (PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet result = statement.executeQuery()) {
      return result.next() && result.getBoolean(1);
    }
  }

  private static void checkName(String name) {
    if (!name.matches("[A-Za-z0-9_]+")) {
      throw new IllegalArgumentException("not a charset or collation name: " + name);
    }
  }

  private static boolean padSpace(Connection connection, String collation) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT PAD_ATTRIBUTE FROM information_schema.COLLATIONS WHERE COLLATION_NAME = ?")) {
      statement.setString(1, collation);
      try (ResultSet result = statement.executeQuery()) {
        return !result.next() || !"NO PAD".equalsIgnoreCase(result.getString(1));
      }
    } catch (SQLException e) {
      // MariaDB has no PAD_ATTRIBUTE column: its NO PAD collations are named *_nopad_*
      return !collation.toLowerCase(Locale.ROOT).contains("nopad");
    }
  }

  /** Compares two values as the collation does. */
  int compare(String left, String right) {
    int[] a = left.codePoints().toArray();
    int[] b = right.codePoints().toArray();
    if (weights == null) {
      return compareUnits(a, b, this::codePointUnits);
    }
    return compareUnits(a, b, this::weightUnits);
  }

  private interface Units {
    /** The comparison units of one code point, as unsigned values. */
    int[] of(int codePoint);
  }

  private int[] codePointUnits(int codePoint) {
    return new int[] {codePoint};
  }

  private int[] weightUnits(int codePoint) {
    if (codePoint >= PLANE && !supplementaryAsReplacement) {
      throw FloeException.badInput(
          "A key holds the character U+"
              + Integer.toHexString(codePoint).toUpperCase(Locale.ROOT)
              + ", which verify cannot place in the order of collation "
              + collation
              + " (characters outside the Basic Multilingual Plane). Name another key with"
              + " --key.");
    }
    // characters outside the BMP weigh as U+FFFD under MySQL's per-character collations
    byte[] bytes = codePoint >= PLANE ? weights[0xFFFD] : weights[codePoint];
    if (bytes == null) {
      return new int[] {0x10000 + codePoint};
    }
    int[] units = new int[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      units[i] = bytes[i] & 0xFF;
    }
    return units;
  }

  private int compareUnits(int[] a, int[] b, Units units) {
    UnitStream left = new UnitStream(a, units);
    UnitStream right = new UnitStream(b, units);
    int[] space = units.of(' ');
    while (true) {
      boolean leftDone = !left.hasNext();
      boolean rightDone = !right.hasNext();
      if (leftDone && rightDone) {
        return 0;
      }
      if (leftDone || rightDone) {
        if (!padSpace) {
          return leftDone ? -1 : 1;
        }
        // compare the rest of the longer value with spaces
        UnitStream rest = leftDone ? right : left;
        int sign = leftDone ? -1 : 1;
        int position = 0;
        while (rest.hasNext()) {
          int unit = rest.next();
          int pad = space.length == 0 ? -1 : space[position++ % space.length];
          if (unit != pad) {
            return unit > pad ? sign : -sign;
          }
        }
        return 0;
      }
      int x = left.next();
      int y = right.next();
      if (x != y) {
        return Integer.compare(x, y);
      }
    }
  }

  /** The comparison units of a value, one code point at a time. */
  private static final class UnitStream {
    private final int[] codePoints;
    private final Units units;
    private int index;
    private int[] current = new int[0];
    private int position;

    UnitStream(int[] codePoints, Units units) {
      this.codePoints = codePoints;
      this.units = units;
    }

    boolean hasNext() {
      while (position >= current.length) {
        if (index >= codePoints.length) {
          return false;
        }
        current = units.of(codePoints[index++]);
        position = 0;
      }
      return true;
    }

    int next() {
      return current[position++];
    }
  }
}
