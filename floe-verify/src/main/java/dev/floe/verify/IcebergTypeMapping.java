package dev.floe.verify;

import dev.floe.core.verify.VerifyColumn;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Floe's mapping of MySQL column types to Iceberg types (docs/verify.md, "Normalization"): what
 * sync writes and what {@link LakeCopier} writes.
 */
public final class IcebergTypeMapping {

  private static final Pattern PRECISION_SCALE = Pattern.compile("\\((\\d+)(?:,(\\d+))?\\)");

  private IcebergTypeMapping() {}

  public static Type icebergType(VerifyColumn column) {
    String type = column.mySqlType().toLowerCase(Locale.ROOT);
    boolean unsigned = type.contains("unsigned");
    switch (column.kind()) {
      case INTEGER:
        if (type.startsWith("bigint")) {
          return unsigned ? Types.DecimalType.of(20, 0) : Types.LongType.get();
        }
        if (type.startsWith("int") && unsigned) {
          return Types.LongType.get();
        }
        return Types.IntegerType.get();
      case BIT:
        return Types.LongType.get();
      case DECIMAL:
        Matcher matcher = PRECISION_SCALE.matcher(type);
        int precision = 10;
        int scale = 0;
        if (matcher.find()) {
          precision = Integer.parseInt(matcher.group(1));
          scale = matcher.group(2) == null ? 0 : Integer.parseInt(matcher.group(2));
        }
        return precision <= 38 ? Types.DecimalType.of(precision, scale) : Types.StringType.get();
      case FLOATING:
        return type.startsWith("float") ? Types.FloatType.get() : Types.DoubleType.get();
      case DATE:
        return Types.DateType.get();
      case DATETIME:
        return Types.TimestampType.withoutZone();
      case TIMESTAMP:
        return Types.TimestampType.withZone();
      case TIME:
        return Types.TimeType.get();
      case STRING:
        return Types.StringType.get();
      case BINARY:
        return Types.BinaryType.get();
      default:
        throw new IllegalArgumentException("no Iceberg type for " + column);
    }
  }
}
