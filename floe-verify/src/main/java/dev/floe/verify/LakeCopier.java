package dev.floe.verify;

import dev.floe.core.verify.KeySql;
import dev.floe.core.verify.TableShape;
import dev.floe.core.verify.VerifyColumn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Copies a MySQL table into a new Iceberg table with {@link IcebergTypeMapping}, in key order, in
 * files of at most {@code rowsPerFile} rows, in one append. For tests and benchmarks (the full
 * extract a verification avoids); not a sync.
 */
public final class LakeCopier {

  private final int rowsPerFile;

  public LakeCopier(int rowsPerFile) {
    this.rowsPerFile = rowsPerFile;
  }

  /** The Iceberg schema of a MySQL table: same column names, key columns required identifiers. */
  public static Schema schema(TableShape shape) {
    List<Types.NestedField> fields = new ArrayList<>();
    Set<Integer> identifiers = new HashSet<>();
    int id = 1;
    for (VerifyColumn column : shape.columns()) {
      boolean key = shape.keyColumns().contains(column);
      Type type = IcebergTypeMapping.icebergType(column);
      fields.add(
          key
              ? Types.NestedField.required(id, column.name(), type)
              : Types.NestedField.optional(id, column.name(), type));
      if (key) {
        identifiers.add(id);
      }
      id++;
    }
    return new Schema(fields, identifiers);
  }

  /** Reads the table's shape from MySQL (for callers that have a connection only). */
  public static TableShape shape(
      Connection connection, String database, String table, String timeColumn) throws SQLException {
    return MySqlTableReader.read(connection, database, table, timeColumn);
  }

  /** Reads the table's shape with a user-named unique key (see {@code --key}). */
  public static TableShape shape(
      Connection connection,
      String database,
      String table,
      String timeColumn,
      List<String> keyColumns)
      throws SQLException {
    return MySqlTableReader.read(connection, database, table, timeColumn, keyColumns);
  }

  /**
   * Creates {@code target} (and its namespace) and fills it with every row of the MySQL table.
   *
   * @return the number of rows copied
   */
  public long copy(Connection connection, TableShape shape, Catalog catalog, TableIdentifier target)
      throws SQLException {
    if (catalog instanceof SupportsNamespaces namespaces
        && !target.namespace().isEmpty()
        && !namespaces.namespaceExists(target.namespace())) {
      namespaces.createNamespace(Namespace.of(target.namespace().levels()));
    }
    Schema schema = schema(shape);
    Table table =
        catalog.createTable(
            target,
            schema,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    try (Statement timeZone = connection.createStatement()) {
      timeZone.execute("SET time_zone = '+00:00'");
    }
    List<String> selected = new ArrayList<>();
    for (VerifyColumn column : shape.columns()) {
      selected.add(select(column));
    }
    String sql =
        "SELECT "
            + String.join(", ", selected)
            + " FROM "
            + shape.quotedName()
            + " ORDER BY "
            + KeySql.orderBy(shape.keyColumns());
    // the table's write properties (its Parquet codec, zstd for a new table), as a sync writes
    GenericAppenderFactory factory = new GenericAppenderFactory(schema).setAll(table.properties());
    AppendFiles append = table.newAppend();
    long copied = 0;
    try (Statement statement =
        connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      statement.setFetchSize(Integer.MIN_VALUE); // stream rows instead of buffering the table
      try (ResultSet result = statement.executeQuery(sql)) {
        DataWriter<Record> writer = null;
        long inFile = 0;
        while (result.next()) {
          if (writer == null) {
            writer = newWriter(table, factory);
            inFile = 0;
          }
          GenericRecord record = GenericRecord.create(schema);
          for (int i = 0; i < shape.columns().size(); i++) {
            record.set(i, value(result, i + 1, schema.columns().get(i).type()));
          }
          writer.write(record);
          copied++;
          if (++inFile >= rowsPerFile) {
            append.appendFile(close(writer));
            writer = null;
          }
        }
        if (writer != null) {
          append.appendFile(close(writer));
        }
      }
    }
    append.commit();
    return copied;
  }

  private static DataWriter<Record> newWriter(Table table, GenericAppenderFactory factory) {
    String path = table.locationProvider().newDataLocation(UUID.randomUUID() + ".parquet");
    return factory.newDataWriter(
        EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(path)),
        FileFormat.PARQUET,
        null);
  }

  private static DataFile close(DataWriter<Record> writer) {
    try {
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private static String select(VerifyColumn column) {
    switch (column.kind()) {
      case DATE:
      case DATETIME:
      case TIMESTAMP:
      case TIME:
        // as text, so JDBC does not shift values between time zones
        return column.kind().sqlText(column.quoted());
      case BIT:
        return "CAST(" + column.quoted() + " AS UNSIGNED)";
      case FLOATING:
        // the text protocol prints a FLOAT with 6 digits (16777216 as 16777200); as a DOUBLE it
        // is exact
        return "CAST(" + column.quoted() + " AS DOUBLE)";
      default:
        return column.quoted();
    }
  }

  /** The Iceberg value of one MySQL value, read with the JDBC getter for its type. */
  static Object value(ResultSet result, int index, Type type) throws SQLException {
    switch (type.typeId()) {
      case INTEGER:
        int integer = result.getInt(index);
        return result.wasNull() ? null : integer;
      case LONG:
        long number = result.getLong(index);
        return result.wasNull() ? null : number;
      case DECIMAL:
        BigDecimal decimal = result.getBigDecimal(index);
        return decimal == null
            ? null
            : decimal.setScale(
                ((Types.DecimalType) type).scale(), java.math.RoundingMode.UNNECESSARY);
      case FLOAT:
        double single = result.getDouble(index);
        return result.wasNull() ? null : (float) single;
      case DOUBLE:
        double dual = result.getDouble(index);
        return result.wasNull() ? null : dual;
      case STRING:
        return result.getString(index);
      case BINARY:
        byte[] bytes = result.getBytes(index);
        return bytes == null ? null : ByteBuffer.wrap(bytes);
      case DATE:
        String date = result.getString(index);
        return date == null ? null : LocalDate.parse(date);
      case TIMESTAMP:
        String text = result.getString(index);
        if (text == null) {
          return null;
        }
        LocalDateTime dateTime = LocalDateTime.parse(text.replace(' ', 'T'));
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? dateTime.atOffset(ZoneOffset.UTC)
            : dateTime;
      case TIME:
        String time = result.getString(index);
        return time == null ? null : LocalTime.parse(time);
      default:
        throw new IllegalArgumentException("cannot copy a value of type " + type);
    }
  }
}
