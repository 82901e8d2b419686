package dev.floe.core.sync;

import static java.util.Objects.requireNonNull;

import java.util.Locale;

/**
 * A MySQL column as {@code information_schema.COLUMNS} describes it.
 *
 * @param name the column name
 * @param dataType {@code DATA_TYPE}, e.g. {@code bigint}
 * @param columnType {@code COLUMN_TYPE}, e.g. {@code bigint(20) unsigned}
 * @param nullable whether NULL is allowed
 * @param precision {@code NUMERIC_PRECISION} (DECIMAL, BIT) or 0
 * @param scale {@code NUMERIC_SCALE} or {@code DATETIME_PRECISION} (fractional seconds) or 0
 */
public record SourceColumn(
    String name, String dataType, String columnType, boolean nullable, int precision, int scale) {

  public SourceColumn {
    requireNonNull(name, "name is null");
    dataType = requireNonNull(dataType, "dataType is null").toLowerCase(Locale.ROOT);
    columnType = requireNonNull(columnType, "columnType is null").toLowerCase(Locale.ROOT);
  }

  public boolean unsigned() {
    return columnType.contains("unsigned");
  }
}
