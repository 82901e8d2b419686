package dev.floe.core.verify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DoubleTextTest {

  /**
   * Each expected text is what MariaDB 10.11 printed for SELECT CAST(value AS CHAR), one value per
   * query (in a UNION the column type changes the text).
   */
  @ParameterizedTest
  @CsvSource({
    "0.1, 0.1",
    "1, 1",
    "3.0, 3",
    "100000, 100000",
    "1e14, 100000000000000",
    "9.5e14, 950000000000000",
    "1e15, 1e15",
    "1.5e15, 1.5e15",
    "-1.5e15, -1.5e15",
    "1.5e16, 1.5e16",
    "1234567890123456, 1.234567890123456e15",
    "1.2345678901234568e17, 1.2345678901234568e17",
    "123456789012345.6, 123456789012345.6",
    "12345678901234.56, 12345678901234.56",
    "0.30000000000000004, 0.30000000000000004",
    "0.12345678901234566, 0.12345678901234566",
    "0.001, 0.001",
    "1.5e-5, 0.000015",
    "-2.5e-7, -0.00000025",
    "1.234e-6, 0.000001234",
    "1.234567e-10, 0.0000000001234567",
    "1e-15, 0.000000000000001",
    "1e-16, 1e-16",
    "1.2345e-17, 1.2345e-17",
    "1.5e-30, 1.5e-30",
    "0.00012345678901234567, 0.00012345678901234567",
    "1.2345678901234567e-5, 0.000012345678901234568",
    "1.234567890123456e-6, 0.000001234567890123456",
    "-1.000000013351432e-10, -0.0000000001000000013351432",
    "1.2345678901234567e-15, 0.0000000000000012345678901234568",
    "1.2345678901234567e14, 123456789012345.67",
    "1.2345678901234567e15, 1234567890123456.8",
    "1.2345678901234567e16, 1.2345678901234568e16",
    "1e-14, 0.00000000000001",
    "1e21, 1e21",
    "1e100, 1e100",
    "5e-324, 5e-324",
    "1.7976931348623157e308, 1.7976931348623157e308",
    "0, 0"
  })
  void matchesMariaDb(double value, String expected) {
    assertThat(DoubleText.format(value)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({
    "0.1, 0.10000000149011612",
    "1, 1",
    "1e20, 1.0000000200408773e20",
    "1e12, 999999995904",
    "123456789, 123456792"
  })
  void floatsCompareAsTheirExactDouble(float value, String expected) {
    assertThat(ColumnKind.FLOATING.text(value, 0)).isEqualTo(expected);
  }
}
