package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.cdc.debezium.DebeziumDeserializationSchema;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns Debezium binlog events into {@link ChangeRecord}s for the Iceberg writer, and applies each
 * DDL to its Iceberg table when the binlog reaches it ({@link LakeSchemas}).
 *
 * <p>Exactly-once over the initial snapshot: {@link SnapshotCopier} copies rows while they change,
 * and the binlog is read from the position taken before its first read. Events up to the position
 * taken after its last read (the overlap bound) may concern rows the copy already holds, so their
 * inserts become upserts; later inserts are plain inserts, with no equality delete.
 */
final class ChangeDeserializer implements DebeziumDeserializationSchema<ChangeRecord> {

  private static final long serialVersionUID = 1L;

  private final CatalogLoader catalogLoader;
  private final SyncTargets targets;
  private final BinlogPosition overlapBound;

  /** Tables copied again: the position their copy started at, and their overlap bound. */
  private final java.util.Map<String, BinlogPosition> recopyStarts = new java.util.HashMap<>();

  private final java.util.Map<String, BinlogPosition> recopyBounds = new java.util.HashMap<>();
  private transient LakeSchemas schemas;
  private transient java.util.Map<String, Boolean> selected;

  /**
   * @param catalogLoader opens the Iceberg catalog in the task
   * @param targets which tables the sync takes and their Iceberg names
   * @param overlapBound the binlog head read after the initial snapshot's last read: inserts at or
   *     before it may overlap copied rows
   * @param recopies tables copied again later, with their own window: their events up to its start
   *     are skipped (the copy holds them), up to its end applied as upserts
   */
  ChangeDeserializer(
      CatalogLoader catalogLoader,
      SyncTargets targets,
      BinlogPosition overlapBound,
      java.util.Map<String, SnapshotState.Window> recopies) {
    this.catalogLoader = requireNonNull(catalogLoader, "catalogLoader is null");
    this.targets = requireNonNull(targets, "targets is null");
    this.overlapBound = requireNonNull(overlapBound, "overlapBound is null");
    requireNonNull(recopies, "recopies is null")
        .forEach(
            (table, window) -> {
              recopyStarts.put(table, window.start());
              recopyBounds.put(table, window.overlapBound());
            });
  }

  /**
   * Whether the sync takes a table ({@link SyncTargets#matches}), remembered per name: the source
   * captures whole databases, so most rows may be of tables the sync does not take, and this check
   * is all they cost here.
   */
  private boolean selected(String table) {
    if (selected == null) {
      selected = new java.util.HashMap<>();
    }
    return selected.computeIfAbsent(table, targets::matches);
  }

  /** Whether an event of this table at this position is already in a later copy of the table. */
  private boolean inRecopy(String table, BinlogPosition at) {
    BinlogPosition start = recopyStarts.get(table);
    return start != null && at.compareTo(start) <= 0;
  }

  @Override
  public void deserialize(SourceRecord record, Collector<ChangeRecord> out) throws Exception {
    if (!(record.value() instanceof Struct envelope)) {
      return; // heartbeats and watermarks
    }
    if (schemas == null) {
      schemas = new LakeSchemas(catalogLoader.open(), targets);
    }
    if (envelope.schema().field("op") == null) {
      Optional<DdlEvent> ddl =
          DdlEvent.of(envelope).filter(event -> !inRecopy(event.qualifiedName(), event.position()));
      if (ddl.isPresent()) {
        BinlogPosition at = ddl.get().position();
        schemas
            .apply(ddl.get())
            .ifPresent(
                emptied ->
                    out.collect(
                        new ChangeRecord(
                            emptied.key,
                            ChangeRecord.Operation.TRUNCATE,
                            new Object[0],
                            emptied.key,
                            emptied.schema.schemaId(),
                            emptied.versionAt(at),
                            at,
                            0)));
      }
      return;
    }
    Struct sourceInfo = envelope.getStruct("source");
    String database = sourceInfo.getString("db");
    String tableName = sourceInfo.getString("table");
    String table = database + "." + tableName;
    if (!selected(table)) {
      return; // captured for its DDL only (CaptureList): no row of it is looked at further
    }
    String op = envelope.getString("op");
    if (op.equals("r")) {
      return; // the source starts in the binlog; Floe copies the snapshot itself
    }
    String file = sourceInfo.getString("file");
    long position = sourceInfo.getInt64("pos");
    BinlogPosition at = new BinlogPosition(file, position);
    Optional<LakeSchemas.LakeTable> found = schemas.table(table, at);
    if (found.isEmpty() || found.get().stoppedBefore(at) || inRecopy(table, at)) {
      return;
    }
    LakeSchemas.LakeTable lake = found.get();
    long millis = sourceInfo.getInt64("ts_ms");
    Source from = new Source(database, tableName, at, millis);
    ChangeRecord.Operation insert =
        at.compareTo(recopyBounds.getOrDefault(table, overlapBound)) <= 0
            ? ChangeRecord.Operation.UPSERT
            : ChangeRecord.Operation.INSERT;
    switch (op) {
      case "c" -> out.collect(record(lake, insert, envelope.getStruct("after"), from));
      case "u" -> {
        out.collect(
            record(lake, ChangeRecord.Operation.DELETE, envelope.getStruct("before"), from));
        // Up to the overlap bound the copy may hold any version of the row, in any partition:
        // the new version is an upsert so that a copied row in its partition goes too.
        out.collect(record(lake, insert, envelope.getStruct("after"), from));
      }
      case "d" ->
          out.collect(
              record(lake, ChangeRecord.Operation.DELETE, envelope.getStruct("before"), from));
      default -> {
        // "t" (truncate) and unknown operations: nothing row-level to apply
      }
    }
  }

  /** Where an event comes from: its table, binlog position and MySQL commit time. */
  private record Source(String database, String table, BinlogPosition at, long millis) {}

  private static ChangeRecord record(
      LakeSchemas.LakeTable lake, ChangeRecord.Operation operation, Struct row, Source from) {
    BinlogPosition at = from.at();
    String[] names = lake.sourceNames(at);
    Field[] fields = lake.fields(row.schema(), names, at);
    Object[] values = new Object[names.length];
    for (int i = 0; i < values.length; i++) {
      Field field = fields[i];
      try {
        values[i] =
            field == null ? null : lake.converters[i].convert(row.get(field), field.schema());
      } catch (IllegalArgumentException
          | ArithmeticException
          | ClassCastException unrepresentable) {
        // The same row fails the same way after every restart: fail the job once, with the reason.
        throw new SuppressRestartsException(unrepresentable);
      }
    }
    if (lake.routed) {
      values[lake.databasePosition] = from.database();
      values[lake.tablePosition] = from.table();
    }
    return new ChangeRecord(
        lake.key,
        operation,
        values,
        routingKey(lake, values),
        lake.schema.schemaId(),
        lake.versionAt(at),
        at,
        from.millis());
  }

  /** The table and identifier values: every change of one row goes to one writer. */
  private static String routingKey(LakeSchemas.LakeTable lake, Object[] values) {
    return routingKey(lake.key, lake.keyPositions, values);
  }

  /** The table key and the values at the identifier positions, as text. */
  static String routingKey(String table, int[] keyPositions, Object[] values) {
    StringBuilder key = new StringBuilder(table);
    for (int position : keyPositions) {
      Object value = values[position];
      key.append('\u0001')
          .append(
              value instanceof java.nio.ByteBuffer buffer
                  ? java.util.HexFormat.of()
                      .formatHex(org.apache.iceberg.util.ByteBuffers.toByteArray(buffer))
                  : value);
    }
    return key.toString();
  }

  @Override
  public TypeInformation<ChangeRecord> getProducedType() {
    return new SerializerTypeInfo<>(ChangeRecord.class, ChangeRecordSerializer.INSTANCE);
  }

  @Override
  public String toString() {
    return "ChangeDeserializer" + targets;
  }
}
