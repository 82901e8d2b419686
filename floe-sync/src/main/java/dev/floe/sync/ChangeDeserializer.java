package dev.floe.sync;

import static java.util.Objects.requireNonNull;

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
 * Turns Debezium binlog events into {@link ChangeRecord}s for the Iceberg writer.
 *
 * <p>Exactly-once over the initial snapshot: {@link SnapshotCopier} copies rows while they change,
 * and the binlog is read from the position taken before its first read. Events up to the position
 * taken after its last read (the overlap bound) may concern rows the copy already holds, so their
 * inserts become upserts; later inserts are plain inserts, with no equality delete.
 */
final class ChangeDeserializer implements DebeziumDeserializationSchema<ChangeRecord> {

  private static final long serialVersionUID = 1L;

  private final Map<String, Schema> schemas;
  private final BinlogPosition overlapBound;
  private transient Map<String, ValueConverter[]> converters;

  /**
   * @param schemas the Iceberg schema of each source table ({@code database.table})
   * @param overlapBound the binlog head read after the initial snapshot's last read: inserts at or
   *     before it may overlap copied rows
   */
  ChangeDeserializer(Map<String, Schema> schemas, BinlogPosition overlapBound) {
    this.schemas = Map.copyOf(requireNonNull(schemas, "schemas is null"));
    this.overlapBound = requireNonNull(overlapBound, "overlapBound is null");
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
      return; // the source starts in the binlog; Floe copies the snapshot itself
    }
    String file = sourceInfo.getString("file");
    long position = sourceInfo.getInt64("pos");
    long millis = sourceInfo.getInt64("ts_ms");
    boolean mayOverlapSnapshot = new BinlogPosition(file, position).compareTo(overlapBound) <= 0;
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
        // Up to the overlap bound the copy may hold any version of the row, in any partition:
        // the new version is an upsert so that a copied row in its partition goes too.
        ChangeRecord.Operation write = insert;
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

  @Override
  public TypeInformation<ChangeRecord> getProducedType() {
    return TypeInformation.of(ChangeRecord.class);
  }

  @Override
  public String toString() {
    return "ChangeDeserializer" + Arrays.toString(schemas.keySet().toArray());
  }
}
