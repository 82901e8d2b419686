package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.PartitionSpecs;
import dev.floe.core.sync.RouteSchema;
import dev.floe.core.sync.SchemaEvolution;
import dev.floe.core.sync.SourceTable;
import dev.floe.core.sync.TableRoute;
import dev.floe.core.sync.TypeMapping;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka reader's view of the Iceberg tables it writes: each source {@code db.table} a message
 * names lands in the table the MySQL sync would name ({@link SyncTargets}), created on its first
 * message (format v2, identifier fields = the message's primary key) and given the columns later
 * messages bring, by the union rules of {@link SchemaEvolution#planRouted}: a new column is added
 * (optional), a wider type widens the column, nothing is dropped or renamed (a message may leave
 * out a column whose values are all null so far).
 *
 * <p>Schema changes are idempotent (a column that exists is no change), so the readers of several
 * partitions may apply them side by side, and a replay after a restart applies nothing twice.
 *
 * <p>Not thread-safe: one per source reader.
 */
final class KafkaTables {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaTables.class);
  private static final int COMMIT_ATTEMPTS = 10;

  /** The table property naming the Kafka sync that writes the table (its restart reads it). */
  static final String SYNC_PROPERTY = "floe.kafka.sync";

  private final Catalog catalog;
  private final SyncTargets targets;
  private final String syncName;
  private final Map<String, String> partitions;
  private final boolean typesFromTable;
  private final Map<String, Target> tables = new HashMap<>();

  /**
   * @param partitions partitioning of tables this creates, per source table ({@code db.table}) or
   *     route's Iceberg table ({@link PartitionSpecs})
   */
  KafkaTables(
      Catalog catalog, SyncTargets targets, String syncName, Map<String, String> partitions) {
    this(catalog, targets, syncName, partitions, false);
  }

  /**
   * @param typesFromTable whether a column's type is the table's whatever the message suggests
   *     (plain JSON, whose types are only inferred): a value is read as its column's type (text as
   *     a timestamp, a number as a decimal...), and only columns the table lacks are added
   */
  KafkaTables(
      Catalog catalog,
      SyncTargets targets,
      String syncName,
      Map<String, String> partitions,
      boolean typesFromTable) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.targets = requireNonNull(targets, "targets is null");
    this.syncName = requireNonNull(syncName, "syncName is null");
    this.partitions = Map.copyOf(partitions);
    this.typesFromTable = typesFromTable;
  }

  /** A message that cannot be applied, with the reason (it goes to the dead-letter table). */
  static final class Rejection extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Rejection(String reason) {
      super(reason, null, false, false);
    }
  }

  /** One Iceberg table as the reader writes it: its schema now and where each column is. */
  static final class Target {
    final String key;
    final Table table;
    final boolean loose;
    Schema schema;
    boolean routed;
    int databasePosition;
    int tablePosition;
    int[] keyPositions;

    /** The NOT NULL columns: a row without a value for one cannot be written. */
    int[] requiredPositions;

    Set<String> keyNames;
    Map<String, Integer> positions;

    /** The message layouts (columns and key) known to fit {@link #schema}. */
    final Set<SourceTable> fits = new HashSet<>();

    Target(String key, Table table, boolean loose) {
      this.key = key;
      this.table = table;
      this.loose = loose;
      reload();
    }

    void reload() {
      schema = table.schema();
      List<Types.NestedField> columns = schema.columns();
      routed = RouteSchema.isRouted(schema);
      databasePosition = columns.indexOf(schema.findField(RouteSchema.DATABASE_COLUMN));
      tablePosition = columns.indexOf(schema.findField(RouteSchema.TABLE_COLUMN));
      keyPositions =
          java.util.stream.IntStream.range(0, columns.size())
              .filter(i -> schema.identifierFieldIds().contains(columns.get(i).fieldId()))
              .toArray();
      requiredPositions =
          java.util.stream.IntStream.range(0, columns.size())
              .filter(i -> columns.get(i).isRequired())
              .toArray();
      keyNames = new TreeSet<>();
      positions = new HashMap<>();
      for (int i = 0; i < columns.size(); i++) {
        String name = columns.get(i).name();
        positions.put(lower(name), i);
        if (schema.identifierFieldIds().contains(columns.get(i).fieldId())
            && !(routed
                && (name.equals(RouteSchema.DATABASE_COLUMN)
                    || name.equals(RouteSchema.TABLE_COLUMN)))) {
          keyNames.add(lower(name));
        }
      }
      fits.clear();
    }

    /**
     * The row as this table's values (schema {@link #schema}), a column the row lacks null; a
     * route's table names the source table.
     *
     * @throws Rejection when a value does not fit its column
     */
    Object[] values(SourceTable source, Map<String, Object> row) {
      List<Types.NestedField> columns = schema.columns();
      Object[] values = new Object[columns.size()];
      for (Map.Entry<String, Object> entry : row.entrySet()) {
        Integer position = positions.get(lower(entry.getKey()));
        if (position == null && entry.getValue() == null) {
          continue; // a column only ever null so far: not added yet
        }
        if (position == null) {
          throw new Rejection(
              "Iceberg table " + key + " has no column " + entry.getKey() + " for this message");
        }
        values[position] =
            loose
                ? fitLoosely(entry.getValue(), columns.get(position))
                : fit(entry.getValue(), columns.get(position));
      }
      if (routed) {
        values[databasePosition] = source.database();
        values[tablePosition] = source.table();
      }
      return values;
    }
  }

  /**
   * The table a message's rows of this source table go to, created or given the message's columns
   * first when needed.
   *
   * @throws Rejection when the message cannot go there (another key, a type Iceberg cannot hold or
   *     change the column to)
   */
  Target table(SourceTable source) {
    TableIdentifier identifier = targets.identifier(source.qualifiedName());
    String key = identifier.toString();
    Target target = tables.get(key);
    if (target == null) {
      target = new Target(key, loadOrCreate(identifier, source), typesFromTable);
      tables.put(key, target);
    }
    if (target.fits.contains(source)) {
      return target;
    }
    Set<String> messageKey = new TreeSet<>();
    source.primaryKey().forEach(name -> messageKey.add(lower(name)));
    if (!messageKey.equals(target.keyNames)) {
      throw new Rejection(
          "the message of "
              + source.qualifiedName()
              + " has the primary key ("
              + String.join(", ", source.primaryKey())
              + ") but Iceberg table "
              + key
              + " is keyed by ("
              + String.join(", ", target.keyNames)
              + "): one table cannot have two different keys");
    }
    follow(target, typesFromTable ? onlyNewColumns(target, source) : source);
    if (target.fits.size() > 256) {
      target.fits.clear(); // layouts are per source table and schema: bounded, unless one never is
    }
    target.fits.add(source);
    return target;
  }

  /** The dead-letter table's columns; its rows are identified by sync, topic, partition, offset. */
  static final Schema DEAD_LETTER_SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "sync", Types.StringType.get()),
              Types.NestedField.required(2, "topic", Types.StringType.get()),
              Types.NestedField.required(3, "partition", Types.IntegerType.get()),
              Types.NestedField.required(4, "offset", Types.LongType.get()),
              Types.NestedField.optional(5, "timestamp", Types.TimestampType.withZone()),
              Types.NestedField.optional(6, "key", Types.BinaryType.get()),
              Types.NestedField.optional(7, "value", Types.BinaryType.get()),
              Types.NestedField.required(8, "reason", Types.StringType.get())),
          Set.of(1, 2, 3, 4));

  /**
   * The dead-letter table, created when missing.
   *
   * @throws FloeException BAD_INPUT when a table of that name exists with other columns
   */
  Target deadLetters(TableIdentifier identifier) {
    String key = identifier.toString();
    Target target = tables.get(key);
    if (target != null) {
      return target;
    }
    if (!catalog.tableExists(identifier)) {
      try {
        TableProvisioner.create(
            catalog,
            identifier,
            "kafka dead letters",
            DEAD_LETTER_SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of());
        LOG.info("created the dead-letter table {}", identifier);
      } catch (AlreadyExistsException createdConcurrently) {
        // another reader created it first
      }
    }
    Table table = catalog.loadTable(identifier);
    requireDeadLetterColumns(table, identifier);
    target = new Target(key, table, false);
    tables.put(key, target);
    return target;
  }

  /** The source with only the columns the table lacks: the table's types stand. */
  private static SourceTable onlyNewColumns(Target target, SourceTable source) {
    return new SourceTable(
        source.database(),
        source.table(),
        source.columns().stream()
            .filter(column -> !target.positions.containsKey(lower(column.name())))
            .toList(),
        source.primaryKey());
  }

  /** The schema of a table created for a source: its key's identifier fields, or none. */
  private static Schema schemaOf(SourceTable source) {
    if (!source.primaryKey().isEmpty()) {
      return TypeMapping.icebergSchema(source);
    }
    List<Types.NestedField> fields = new java.util.ArrayList<>();
    int id = 1;
    for (dev.floe.core.sync.SourceColumn column : source.columns()) {
      fields.add(
          Types.NestedField.optional(id++, column.name(), TypeMapping.icebergType(source, column)));
    }
    return new Schema(fields);
  }

  /**
   * Refuses an existing table of the dead letter's name that has other columns than Floe writes.
   *
   * @throws FloeException BAD_INPUT naming both column lists
   */
  static void requireDeadLetterColumns(Table table, TableIdentifier identifier) {
    if (!table.schema().asStruct().equals(DEAD_LETTER_SCHEMA.asStruct())
        || !table.schema().identifierFieldIds().equals(DEAD_LETTER_SCHEMA.identifierFieldIds())) {
      throw FloeException.badInput(
          "The dead-letter table "
              + identifier
              + " exists with other columns ("
              + table.schema().asStruct()
              + ") than Floe's ("
              + DEAD_LETTER_SCHEMA.asStruct()
              + "). Choose another with --dead-letter NS.TABLE.");
    }
  }

  private Table loadOrCreate(TableIdentifier identifier, SourceTable source) {
    if (!catalog.tableExists(identifier)) {
      Optional<TableRoute> route = targets.route(source.qualifiedName());
      Schema schema;
      try {
        schema =
            route.isPresent()
                ? RouteSchema.union(route.get().text(), List.of(source))
                : schemaOf(source);
      } catch (FloeException cannotSync) {
        throw new Rejection(
            source.qualifiedName() + " cannot be synced: " + cannotSync.getMessage());
      }
      String name = route.map(TableRoute::target).orElse(source.qualifiedName());
      PartitionSpec spec;
      try {
        spec =
            partitions.containsKey(name)
                ? PartitionSpecs.parse(name, partitions.get(name), schema)
                : PartitionSpec.unpartitioned();
      } catch (FloeException badSpec) {
        throw new Rejection(badSpec.getMessage());
      }
      try {
        TableProvisioner.create(
            catalog,
            identifier,
            route.map(r -> r.pattern().pattern()).orElse(source.qualifiedName()),
            schema,
            spec,
            Map.of(SYNC_PROPERTY, syncName));
        LOG.info("created Iceberg table {} for {}", identifier, source.qualifiedName());
      } catch (AlreadyExistsException createdConcurrently) {
        // another reader created it first
      }
    }
    Table table = catalog.loadTable(identifier);
    for (int attempt = 1; !table.properties().containsKey(SYNC_PROPERTY); attempt++) {
      try {
        table.updateProperties().set(SYNC_PROPERTY, syncName).commit();
      } catch (CommitFailedException concurrent) {
        if (attempt == COMMIT_ATTEMPTS) {
          throw concurrent;
        }
      }
      table.refresh();
    }
    return table;
  }

  /** Gives the table the message's columns (added, widened), retrying after a concurrent commit. */
  private void follow(Target target, SourceTable source) {
    for (int attempt = 1; ; attempt++) {
      SchemaEvolution.Plan plan = SchemaEvolution.planRouted(target.schema, source);
      if (plan.refusal().isPresent()) {
        throw new Rejection(
            "Iceberg table "
                + target.key
                + " cannot take this message of "
                + source.qualifiedName()
                + ": "
                + plan.refusal().get());
      }
      List<SchemaEvolution.Step> steps =
          plan.steps().stream()
              .filter(step -> !(step instanceof SchemaEvolution.MoveColumn))
              .toList();
      if (steps.isEmpty()) {
        return;
      }
      UpdateSchema update = target.table.updateSchema();
      for (SchemaEvolution.Step step : steps) {
        if (step instanceof SchemaEvolution.AddColumn add) {
          update.addColumn(add.name(), add.type());
        } else if (step instanceof SchemaEvolution.WidenColumn widen) {
          update.updateColumn(widen.name(), widen.to());
        } else if (step instanceof SchemaEvolution.MakeOptional optional) {
          update.makeColumnOptional(optional.name());
        }
      }
      try {
        update.commit();
        LOG.info("{}: columns of {} applied: {}", target.key, source.qualifiedName(), plan.steps());
        target.table.refresh();
        target.reload();
        return;
      } catch (CommitFailedException conflict) {
        if (attempt == COMMIT_ATTEMPTS) {
          throw new IllegalStateException(
              "cannot change the schema of " + target.key + " after " + attempt + " attempts",
              conflict);
        }
        target.table.refresh();
        target.reload();
      } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException no) {
        throw new Rejection(
            "Iceberg table " + target.key + " refused the columns of this message: " + no);
      }
    }
  }

  /**
   * The value as the column's Iceberg type holds it: a decoder's value for the message's own type,
   * widened (int to long, float to double, a decimal's scale) where the table's column is wider.
   *
   * @throws Rejection when the column cannot hold it
   */
  static Object fit(Object value, Types.NestedField column) {
    if (value == null) {
      return null;
    }
    Type type = column.type();
    Object fitted =
        switch (type.typeId()) {
          case LONG ->
              value instanceof Integer || value instanceof Long
                  ? ((Number) value).longValue()
                  : null;
          case INTEGER ->
              value instanceof Integer
                  ? value
                  : value instanceof Long number && number == number.intValue()
                      ? number.intValue()
                      : null;
          case DOUBLE ->
              value instanceof Double || value instanceof Float
                  ? ((Number) value).doubleValue()
                  : null;
          case FLOAT -> value instanceof Float ? value : null;
          case DECIMAL -> decimal(value, (Types.DecimalType) type);
          case STRING -> value instanceof String ? value : null;
          case BOOLEAN -> value instanceof Boolean ? value : null;
          case DATE -> value instanceof LocalDate ? value : null;
          case TIME -> value instanceof LocalTime ? value : null;
          case TIMESTAMP ->
              ((Types.TimestampType) type).shouldAdjustToUTC()
                  ? (value instanceof OffsetDateTime ? value : null)
                  : (value instanceof LocalDateTime ? value : null);
          case BINARY, FIXED -> value instanceof ByteBuffer ? value : null;
          default -> null;
        };
    if (fitted == null) {
      throw new Rejection(
          "column "
              + column.name()
              + " ("
              + type
              + ") cannot hold the value "
              + KafkaValues.abbreviated(String.valueOf(value)));
    }
    return fitted;
  }

  /**
   * As {@link #fit}, and where that fails, the value read as the column's type: text as a number,
   * decimal, boolean, date, time or timestamp (ISO-8601, a space allowed for the T; without an
   * offset a timestamp with zone is UTC), a number as text or as epoch milliseconds of a timestamp.
   *
   * @throws Rejection when it cannot be read so
   */
  static Object fitLoosely(Object value, Types.NestedField column) {
    try {
      return fit(value, column);
    } catch (Rejection strict) {
      Object read;
      try {
        read = read(value, column.type());
      } catch (RuntimeException unreadable) {
        read = null;
      }
      if (read == null) {
        throw strict;
      }
      return fit(read, column);
    }
  }

  private static Object read(Object value, Type type) {
    String text = value.toString().trim();
    return switch (type.typeId()) {
      case LONG ->
          value instanceof BigDecimal number ? number.longValueExact() : Long.parseLong(text);
      case INTEGER ->
          value instanceof BigDecimal number ? number.intValueExact() : Integer.parseInt(text);
      case DOUBLE ->
          value instanceof Number number ? number.doubleValue() : Double.parseDouble(text);
      case FLOAT -> value instanceof Number number ? number.floatValue() : Float.parseFloat(text);
      case DECIMAL -> new BigDecimal(text);
      case STRING -> value instanceof Number || value instanceof Boolean ? text : null;
      case BOOLEAN ->
          text.equalsIgnoreCase("true")
              ? Boolean.TRUE
              : text.equalsIgnoreCase("false") ? Boolean.FALSE : null;
      case DATE -> LocalDate.parse(text);
      case TIME -> LocalTime.parse(text);
      case TIMESTAMP -> {
        OffsetDateTime instant;
        if (value instanceof Long millis) {
          instant =
              OffsetDateTime.ofInstant(
                  java.time.Instant.ofEpochMilli(millis), java.time.ZoneOffset.UTC);
        } else {
          String iso = text.replace(' ', 'T');
          java.time.temporal.TemporalAccessor parsed =
              java.time.format.DateTimeFormatter.ISO_DATE_TIME.parseBest(
                  iso, OffsetDateTime::from, LocalDateTime::from);
          instant =
              parsed instanceof OffsetDateTime zoned
                  ? zoned.withOffsetSameInstant(java.time.ZoneOffset.UTC)
                  : ((LocalDateTime) parsed).atOffset(java.time.ZoneOffset.UTC);
        }
        yield ((Types.TimestampType) type).shouldAdjustToUTC()
            ? instant
            : instant.toLocalDateTime();
      }
      default -> null;
    };
  }

  private static BigDecimal decimal(Object value, Types.DecimalType type) {
    BigDecimal decimal;
    if (value instanceof BigDecimal exact) {
      decimal = exact;
    } else if (value instanceof Integer || value instanceof Long) {
      decimal = BigDecimal.valueOf(((Number) value).longValue());
    } else {
      return null;
    }
    try {
      BigDecimal scaled = decimal.setScale(type.scale(), RoundingMode.UNNECESSARY);
      return scaled.precision() <= type.precision() ? scaled : null;
    } catch (ArithmeticException inexact) {
      return null;
    }
  }

  private static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
