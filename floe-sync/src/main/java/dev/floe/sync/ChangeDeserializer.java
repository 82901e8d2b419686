package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.mysql.MySqlConnections;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.cdc.debezium.DebeziumDeserializationSchema;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns Debezium change events into {@link ChangeRecord}s for the Iceberg writer.
 *
 * <p>Exactly-once through the snapshot window: Floe runs the CDC source without its backfill (which
 * loses changes against MariaDB), so binlog events from the snapshot window are replayed over rows
 * the snapshot may already have read. Every binlog event at or before the binlog head observed once
 * the snapshot is over (the first binlog event this reader sees triggers the look-up; the source
 * reads the binlog only after every snapshot split is done) may overlap the snapshot, so its
 * inserts become upserts. Later inserts are plain inserts: no equality delete for new rows. After a
 * restart the head is observed anew, which only makes a few more inserts upserts.
 */
final class ChangeDeserializer implements DebeziumDeserializationSchema<ChangeRecord> {

  private static final long serialVersionUID = 1L;

  private final Map<String, Schema> schemas;
  private final SourceEndpoint source;
  private transient BinlogPosition overlapBound;
  private transient Map<String, ValueConverter[]> converters;

  /**
   * @param schemas the Iceberg schema of each source table ({@code database.table})
   * @param source the source, to read the binlog head once the binlog phase starts
   */
  ChangeDeserializer(Map<String, Schema> schemas, SourceEndpoint source) {
    this.schemas = Map.copyOf(requireNonNull(schemas, "schemas is null"));
    this.source = requireNonNull(source, "source is null");
  }

  @Override
  public void deserialize(SourceRecord record, Collector<ChangeRecord> out) throws Exception {
    if (!(record.value() instanceof Struct envelope) || envelope.schema().field("op") == null) {
      return; // heartbeats, watermarks and schema changes carry no rows
    }
    Struct sourceInfo = envelope.getStruct("source");
    String table = sourceInfo.getString("db") + "." + sourceInfo.getString("table");
    Schema schema = schemas.get(table);
    if (schema == null) {
      return;
    }
    String op = envelope.getString("op");
    if (op.equals("r")) {
      out.collect(
          new ChangeRecord(
              table,
              ChangeRecord.Operation.INSERT,
              values(table, schema, envelope.getStruct("after")),
              "",
              0,
              0));
      return;
    }
    String file = sourceInfo.getString("file");
    long position = sourceInfo.getInt64("pos");
    long millis = sourceInfo.getInt64("ts_ms");
    boolean mayOverlapSnapshot = new BinlogPosition(file, position).compareTo(overlapBound()) <= 0;
    ChangeRecord.Operation insert =
        mayOverlapSnapshot ? ChangeRecord.Operation.UPSERT : ChangeRecord.Operation.INSERT;
    switch (op) {
      case "c" ->
          out.collect(
              new ChangeRecord(
                  table,
                  insert,
                  values(table, schema, envelope.getStruct("after")),
                  file,
                  position,
                  millis));
      case "u" -> {
        Object[] before = values(table, schema, envelope.getStruct("before"));
        Object[] after = values(table, schema, envelope.getStruct("after"));
        out.collect(
            new ChangeRecord(table, ChangeRecord.Operation.DELETE, before, file, position, millis));
        ChangeRecord.Operation write =
            sameKey(schema, before, after) ? ChangeRecord.Operation.INSERT : insert;
        out.collect(new ChangeRecord(table, write, after, file, position, millis));
      }
      case "d" ->
          out.collect(
              new ChangeRecord(
                  table,
                  ChangeRecord.Operation.DELETE,
                  values(table, schema, envelope.getStruct("before")),
                  file,
                  position,
                  millis));
      default -> {
        // "t" (truncate) and unknown operations: nothing row-level to apply
      }
    }
  }

  private BinlogPosition overlapBound() throws SQLException {
    if (overlapBound == null) {
      overlapBound = binlogHead();
    }
    return overlapBound;
  }

  private BinlogPosition binlogHead() throws SQLException {
    try (Connection connection =
            new MySqlConnections(Duration.ofSeconds(30)).connect(source.address());
        Statement statement = connection.createStatement()) {
      for (String query : List.of("SHOW MASTER STATUS", "SHOW BINARY LOG STATUS")) {
        try (ResultSet row = statement.executeQuery(query)) {
          if (row.next()) {
            return new BinlogPosition(row.getString(1), row.getLong(2));
          }
        } catch (SQLException unsupported) {
          // MySQL 8.4 renamed SHOW MASTER STATUS; try the next form
        }
      }
    }
    throw new SQLException("cannot read the binlog position of " + source.address().hostAndPort());
  }

  private Object[] values(String table, Schema schema, Struct row) {
    List<Types.NestedField> columns = schema.columns();
    ValueConverter[] tableConverters = converters(table, schema);
    Object[] values = new Object[columns.size()];
    for (int i = 0; i < values.length; i++) {
      Field field = row.schema().field(columns.get(i).name());
      try {
        values[i] =
            field == null ? null : tableConverters[i].convert(row.get(field), field.schema());
      } catch (IllegalArgumentException
          | ArithmeticException
          | ClassCastException unrepresentable) {
        // The same row fails the same way after every restart: fail the job once, with the reason.
        throw new SuppressRestartsException(unrepresentable);
      }
    }
    return values;
  }

  private ValueConverter[] converters(String table, Schema schema) {
    if (converters == null) {
      converters = new java.util.HashMap<>();
    }
    return converters.computeIfAbsent(
        table,
        name ->
            schema.columns().stream()
                .map(column -> new ValueConverter(name, column.name(), column.type()))
                .toArray(ValueConverter[]::new));
  }

  private static boolean sameKey(Schema schema, Object[] before, Object[] after) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (schema.identifierFieldIds().contains(columns.get(i).fieldId())
          && !java.util.Objects.equals(before[i], after[i])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public TypeInformation<ChangeRecord> getProducedType() {
    return TypeInformation.of(ChangeRecord.class);
  }

  @Override
  public String toString() {
    return "ChangeDeserializer" + Arrays.toString(schemas.keySet().toArray());
  }
}
