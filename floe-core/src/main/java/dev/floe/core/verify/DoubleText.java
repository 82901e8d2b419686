package dev.floe.core.verify;

import java.math.BigDecimal;

/**
 * Formats a double the way MariaDB's {@code CAST(double AS CHAR)} does: the shortest decimal digits
 * that round-trip ({@code digits} with the decimal point after {@code decpt} of them), in plain
 * notation when {@code -14 <= decpt <= 0}, or {@code 0 < decpt} and either the point falls inside
 * the digits or {@code decpt <= 15}; otherwise as {@code d.ddde±x}.
 *
 * <p>Verified against MariaDB 10.11; MySQL 8 prints doubles differently and is untested.
 */
public final class DoubleText {

  private DoubleText() {}

  /**
   * The shortest decimal that parses back to the value. Java 17's {@link Double#toString} is
   * sometimes one digit longer (e.g. 4.9E-324 for 5e-324), so one digit less is tried as well.
   */
  static BigDecimal shortest(double positive) {
    BigDecimal digits = new BigDecimal(Double.toString(positive)).stripTrailingZeros();
    int precision = digits.precision();
    if (precision > 1) {
      BigDecimal shorter =
          digits.round(new java.math.MathContext(precision - 1, java.math.RoundingMode.HALF_EVEN));
      if (shorter.doubleValue() == positive) {
        return shorter.stripTrailingZeros();
      }
    }
    return digits;
  }

  public static String format(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return Double.toString(value);
    }
    if (value == 0) {
      return "0";
    }
    BigDecimal shortest = shortest(Math.abs(value));
    String digits = shortest.unscaledValue().toString();
    // value = 0.digits * 10^decimalPoint
    int decimalPoint = digits.length() - shortest.scale();
    String sign = value < 0 ? "-" : "";
    boolean plainFits =
        decimalPoint <= 0
            ? decimalPoint >= -14
            : decimalPoint < digits.length() || decimalPoint <= 15;
    if (!plainFits) {
      String mantissa =
          digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
      return sign + mantissa + "e" + (decimalPoint - 1);
    }
    String plain;
    if (decimalPoint <= 0) {
      plain = "0." + "0".repeat(-decimalPoint) + digits;
    } else if (decimalPoint < digits.length()) {
      plain = digits.substring(0, decimalPoint) + "." + digits.substring(decimalPoint);
    } else {
      plain = digits + "0".repeat(decimalPoint - digits.length());
    }
    return sign + plain;
  }
}
