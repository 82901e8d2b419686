package dev.floe.iceberg.optimize;

import dev.floe.core.error.FloeException;
import java.util.Locale;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;

/** What a table must be for Floe to optimize it; checked before anything is read or written. */
public final class OptimizeTableCheck {

  private OptimizeTableCheck() {}

  /**
   * Identifier fields are not needed: an equality delete file carries its own key columns (its
   * equality field ids), and the rewrite joins by those.
   *
   * @throws FloeException BAD_INPUT naming the table and what to do when it is not format v2 or
   *     writes another file format than Parquet
   */
  public static void check(String name, Table table) {
    int formatVersion = TableUtil.formatVersion(table);
    if (formatVersion != 2) {
      throw FloeException.badInput(
          "Table "
              + name
              + " is Iceberg format v"
              + formatVersion
              + "; floe optimize works on format v2 tables (row-level deletes with sequence"
              + " numbers). Upgrade it with ALTER TABLE ... SET TBLPROPERTIES ('format-version'='2')"
              + (formatVersion > 2 ? " or wait for v3 support" : "")
              + ".");
    }
    String format =
        table
            .properties()
            .getOrDefault(
                TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT);
    if (!format.toLowerCase(Locale.ROOT).equals("parquet")) {
      throw unsupportedFormat(name, format);
    }
  }

  static FloeException unsupportedFormat(String name, Object format) {
    return FloeException.badInput(
        "Table "
            + name
            + " uses the "
            + String.valueOf(format).toLowerCase(Locale.ROOT)
            + " file format; floe optimize reads and writes Parquet only. Write the table as"
            + " Parquet (write.format.default=parquet) to optimize it.");
  }

  static void checkFormat(String name, FileFormat format) {
    if (format != FileFormat.PARQUET) {
      throw unsupportedFormat(name, format);
    }
  }
}
