package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.RouteSchema;
import dev.floe.core.sync.SchemaEvolution;
import dev.floe.core.sync.SourceTable;
import dev.floe.core.sync.SyncProperties;
import dev.floe.core.sync.TableRoute;
import dev.floe.core.sync.TypeMapping;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Field;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The binlog reader's view of the synced tables: the Iceberg schema each table's rows are written
 * with, and the DDL that changes it.
 *
 * <p>A DDL is applied to the Iceberg table when the reader reaches it in the binlog, before any
 * later row of the table is read, so every row after it is written with the new schema. The change,
 * its binlog position and the schema history are one Iceberg commit; a DDL replayed after a restore
 * (at or before the recorded position) is skipped, and replayed rows from before a DDL are read
 * with the schema of their time (renamed columns by their old name). Data files written before a
 * change and committed after it stay valid: Iceberg reads columns by field id.
 *
 * <p>Not thread-safe: used by the one binlog reader.
 */
final class LakeSchemas {

  private static final Logger LOG = LoggerFactory.getLogger(LakeSchemas.class);
  private static final int COMMIT_ATTEMPTS = 5;

  private final Catalog catalog;
  private final SyncTargets targets;

  /** Each source table's Iceberg table; the tables of one route share theirs. */
  private final Map<String, LakeTable> tables = new HashMap<>();

  private final Map<TableIdentifier, LakeTable> byIdentifier = new HashMap<>();
  private final Set<String> notSynced = new HashSet<>();

  /** The renamed tables of a namespace, read when a name is missing ({@link RenamedTables}). */
  private final Map<org.apache.iceberg.catalog.Namespace, List<RenamedTables.Renamed>>
      renamedTables = new HashMap<>();

  LakeSchemas(Catalog catalog, SyncTargets targets) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.targets = requireNonNull(targets, "targets is null");
  }

  /** One synced Iceberg table as the reader knows it. */
  static final class LakeTable {
    /** The source table, or for a route's table the route: names the table in messages. */
    final String source;

    /** The writer's and committer's name of the table ({@link SyncTargets#lakeTable}). */
    final String key;

    final Table table;

    /** Whether the table is a route's ({@link RouteSchema}): rows name their source table. */
    boolean routed;

    /** Positions of {@link RouteSchema#DATABASE_COLUMN} and {@link RouteSchema#TABLE_COLUMN}. */
    int databasePosition = -1;

    int tablePosition = -1;
    Schema schema;
    int version;
    List<HistoryEntry> history;
    BinlogPosition schemaPosition;
    BinlogPosition stoppedAt;
    int[] keyPositions;
    ValueConverter[] converters;
    private final Map<Integer, String[]> namesBySchema = new HashMap<>();

    /** The fields to read, per decoded row layout and names (layouts differ by source table). */
    private final Map<org.apache.kafka.connect.data.Schema, Map<String[], Field[]>> fields =
        new java.util.IdentityHashMap<>();

    LakeTable(String source, TableIdentifier identifier, Table table) {
      this.source = source;
      this.key = identifier.toString();
      this.table = table;
      reload();
    }

    void reload() {
      table.refresh();
      Map<String, String> properties = table.properties();
      schema = table.schema();
      history = HistoryEntry.parse(properties.getOrDefault(SyncProperties.SCHEMA_HISTORY, ""));
      version = Math.max(0, history.size() - 1);
      schemaPosition =
          BinlogPosition.parse(properties.getOrDefault(SyncProperties.SCHEMA_POSITION, ""));
      stoppedAt =
          properties.containsKey(SyncProperties.STOPPED)
              ? BinlogPosition.parse(properties.getOrDefault(SyncProperties.STOPPED_POSITION, ""))
              : null;
      List<Types.NestedField> columns = schema.columns();
      routed = RouteSchema.isRouted(schema);
      databasePosition = columns.indexOf(schema.findField(RouteSchema.DATABASE_COLUMN));
      tablePosition = columns.indexOf(schema.findField(RouteSchema.TABLE_COLUMN));
      keyPositions =
          java.util.stream.IntStream.range(0, columns.size())
              .filter(i -> schema.identifierFieldIds().contains(columns.get(i).fieldId()))
              .toArray();
      converters =
          columns.stream()
              .map(column -> new ValueConverter(source, column.name(), column.type()))
              .toArray(ValueConverter[]::new);
      namesBySchema.clear();
      fields.clear();
    }

    /**
     * The schema version a change at this position belongs to: the current one, or for a change
     * replayed from before a DDL or TRUNCATE, the version of its time.
     */
    int versionAt(BinlogPosition position) {
      if (history.isEmpty() || position.compareTo(schemaPosition) > 0) {
        return version;
      }
      int at = -1;
      for (HistoryEntry entry : history) {
        if (entry.since().compareTo(position) <= 0) {
          at++;
        }
      }
      return Math.max(0, at);
    }

    /** Whether a schema version (a DDL or TRUNCATE applied) starts at this position. */
    boolean versionStartsAt(BinlogPosition position) {
      return history.stream().anyMatch(entry -> entry.since().equals(position));
    }

    /** Whether a change at this position is past the point the table stopped at. */
    boolean stoppedBefore(BinlogPosition position) {
      return stoppedAt != null && position.compareTo(stoppedAt) > 0;
    }

    /**
     * The source column to read for each current column, for a row at this position: the current
     * names, or for a row replayed from before a DDL, the names of its time (null for a column that
     * did not exist then).
     */
    String[] sourceNames(BinlogPosition position) {
      int schemaId = schema.schemaId();
      if (!history.isEmpty() && position.compareTo(schemaPosition) < 0) {
        for (HistoryEntry entry : history) {
          if (entry.since().compareTo(position) <= 0) {
            schemaId = entry.schemaId();
          }
        }
      }
      return namesBySchema.computeIfAbsent(
          schemaId,
          id -> {
            Schema then = table.schemas().getOrDefault(id, schema);
            return schema.columns().stream()
                .map(
                    column ->
                        then.findField(column.fieldId()) == null
                                || (routed
                                    && (column.name().equals(RouteSchema.DATABASE_COLUMN)
                                        || column.name().equals(RouteSchema.TABLE_COLUMN)))
                            ? null
                            : then.findField(column.fieldId()).name())
                .toArray(String[]::new);
          });
    }

    /**
     * The decoded row's field for each current column (null where the row has none), for rows
     * decoded with this layout at this position.
     *
     * <p>Fails the job when the CDC source decoded a row with other columns than the table had at
     * the row's position: the source decodes with the definition it read when it started, and a DDL
     * between the sync's start position and that moment (during the initial copy) makes it misread
     * rows logged before the DDL. A route's table holds the union of its tables' columns, so there
     * a row may have fewer, never other, columns. Checked once per layout.
     */
    Field[] fields(org.apache.kafka.connect.data.Schema layout, String[] names, BinlogPosition at) {
      if (fields.size() > 256) {
        fields.clear(); // layouts are per source table and schema: bounded, unless one never is
      }
      Map<String[], Field[]> byNames =
          fields.computeIfAbsent(layout, ignored -> new java.util.IdentityHashMap<>());
      Field[] found = byNames.get(names);
      if (found != null) {
        return found;
      }
      Map<String, Field> decoded = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
      for (Field field : layout.fields()) {
        decoded.put(field.name(), field);
      }
      Set<String> expected = new java.util.TreeSet<>(String.CASE_INSENSITIVE_ORDER);
      for (String name : names) {
        if (name != null) {
          expected.add(name);
        }
      }
      boolean fits =
          routed ? expected.containsAll(decoded.keySet()) : expected.equals(decoded.keySet());
      if (!fits) {
        throw new org.apache.flink.runtime.execution.SuppressRestartsException(
            FloeException.badInput(
                "The binlog row of "
                    + source
                    + " at "
                    + at.text()
                    + " was decoded with columns "
                    + new java.util.TreeSet<>(decoded.keySet())
                    + " but the table had "
                    + expected
                    + " there: the table was altered after that position before the binlog"
                    + " phase started (during the initial copy), so its earlier rows cannot be"
                    + " read. Start the sync again with --resnapshot, and change table"
                    + " definitions after the copy is complete."));
      }
      found = new Field[names.length];
      for (int i = 0; i < names.length; i++) {
        found[i] = names[i] == null ? null : decoded.get(names[i]);
      }
      byNames.put(names, found);
      return found;
    }
  }

  /** One entry of {@link SyncProperties#SCHEMA_HISTORY}. */
  record HistoryEntry(BinlogPosition since, int schemaId) {
    static List<HistoryEntry> parse(String text) {
      List<HistoryEntry> entries = new ArrayList<>();
      for (String entry : text.split(";")) {
        int arrow = entry.lastIndexOf('>');
        if (arrow >= 0) {
          entries.add(
              new HistoryEntry(
                  BinlogPosition.parse(entry.substring(0, arrow)),
                  Integer.parseInt(entry.substring(arrow + 1))));
        }
      }
      return entries;
    }

    static String format(List<HistoryEntry> entries) {
      return String.join(
          ";", entries.stream().map(entry -> entry.since.text() + ">" + entry.schemaId).toList());
    }
  }

  /** The table as it is now, or empty when the sync does not write it. */
  Optional<LakeTable> table(String source) {
    return table(source, Optional.empty());
  }

  /**
   * The table a change of this source table at this position belongs to, or empty when the sync
   * does not write it: the Iceberg table of the source's name, or for a change replayed from before
   * a {@code RENAME TABLE}, the table under its new name ({@link RenamedTables}).
   */
  Optional<LakeTable> table(String source, BinlogPosition at) {
    return table(source, Optional.of(at));
  }

  private Optional<LakeTable> table(String source, Optional<BinlogPosition> at) {
    LakeTable known = tables.get(source);
    if (known != null) {
      return Optional.of(known);
    }
    if (notSynced.contains(source)) {
      return Optional.empty();
    }
    Optional<TableIdentifier> identifier =
        targets.matches(source) ? identifierAt(source, at) : Optional.empty();
    if (identifier.isEmpty()) {
      notSynced.add(source);
      return Optional.empty();
    }
    LakeTable table =
        byIdentifier.computeIfAbsent(
            identifier.get(),
            target ->
                new LakeTable(
                    targets.route(source).map(TableRoute::text).orElse(source),
                    target,
                    catalog.loadTable(target)));
    tables.put(source, table);
    return Optional.of(table);
  }

  /**
   * The Iceberg table of the source table at this position (or now): the table of its name if that
   * table had the name then, otherwise the table renamed away from the name at the first rename
   * after the position.
   */
  private Optional<TableIdentifier> identifierAt(String source, Optional<BinlogPosition> at) {
    TableIdentifier identifier = targets.identifier(source);
    if (catalog.tableExists(identifier)) {
      if (at.isEmpty()) {
        return Optional.of(identifier);
      }
      LakeTable loaded = byIdentifier.get(identifier);
      Map<String, String> properties =
          loaded == null ? catalog.loadTable(identifier).properties() : loaded.table.properties();
      if (RenamedTables.of(properties).stream()
          .noneMatch(name -> at.get().compareTo(name.until()) < 0)) {
        return Optional.of(identifier);
      }
    }
    if (at.isEmpty()) {
      return Optional.empty();
    }
    List<RenamedTables.Renamed> renamed =
        renamedTables.computeIfAbsent(
            identifier.namespace(), namespace -> RenamedTables.in(catalog, namespace));
    TableIdentifier found = null;
    BinlogPosition until = null;
    for (RenamedTables.Renamed table : renamed) {
      for (RenamedTables.FormerName name : table.formerNames()) {
        if (name.source().equals(source)
            && at.get().compareTo(name.until()) < 0
            && (until == null || name.until().compareTo(until) < 0)) {
          found = table.identifier();
          until = name.until();
        }
      }
    }
    return Optional.ofNullable(found).filter(catalog::tableExists);
  }

  /**
   * Applies a DDL the binlog reader reached.
   *
   * @return the table a TRUNCATE TABLE empties: the reader sends it a truncate record (also for a
   *     TRUNCATE replayed after a restore, whose record may not have been committed then)
   */
  Optional<LakeTable> apply(DdlEvent event) {
    String source = event.qualifiedName();
    if (event.kind() == DdlEvent.Kind.RENAME) {
      rename(event);
      return Optional.empty();
    }
    if (!targets.matches(source)) {
      return Optional.empty();
    }
    Optional<LakeTable> known = table(source, event.position());
    boolean truncate =
        event.kind() == DdlEvent.Kind.OTHER
            && event.ddl().trim().regionMatches(true, 0, "TRUNCATE", 0, 8);
    if (known.isPresent() && known.get().stoppedBefore(event.position())) {
      return Optional.empty();
    }
    if (known.isPresent() && event.position().compareTo(known.get().schemaPosition) <= 0) {
      // applied before a restore
      return truncate && known.get().versionStartsAt(event.position()) ? known : Optional.empty();
    }
    if (known.isPresent() && known.get().stoppedAt != null) {
      return Optional.empty();
    }
    if (truncate && known.isPresent()) {
      if (known.get().routed) {
        LOG.warn(
            "{}: `{}` at binlog {} is not applied to {}, which it shares with the other tables of"
                + " route '{}'; the table's rows stay until deleted (or copy the route again with"
                + " floe sync --resnapshot {})",
            source,
            event.ddl(),
            event.position().text(),
            known.get().key,
            known.get().source,
            source);
        return Optional.empty();
      }
      truncate(known.get(), event);
      return known;
    }
    switch (event.kind()) {
      case CREATE -> {
        if (known.isEmpty()) {
          create(event, false);
        } else {
          alter(known.get(), event);
        }
      }
      case ALTER -> known.ifPresent(table -> alter(table, event));
      case DROP ->
          known.ifPresent(
              table -> {
                if (table.routed) {
                  LOG.warn(
                      "{} was dropped in MySQL at binlog {}; its rows stay in {} with those of"
                          + " the other tables of route '{}'",
                      source,
                      event.position().text(),
                      table.key,
                      table.source);
                } else {
                  stop(
                      table,
                      event,
                      "the table was dropped in MySQL. The Iceberg table keeps its rows; drop it"
                          + " when they are no longer needed");
                }
              });
      case OTHER -> {
        // comments, indexes and the like change nothing Iceberg holds
      }
    }
    return Optional.empty();
  }

  /**
   * Applies a {@code RENAME TABLE} (or {@code ALTER TABLE ... RENAME TO}). A synced table renamed
   * to a name the sync takes is renamed in Iceberg too, keeping its rows and history; renamed to a
   * name it does not take, it stops like a dropped table; a table renamed to a name the sync takes
   * from one it did not sync starts like a created one. Within a route, nothing changes but the
   * {@code _source_table} of later rows.
   */
  private void rename(DdlEvent event) {
    String from = event.renamedFrom().orElseThrow();
    String to = event.qualifiedName();
    BinlogPosition at = event.position();
    // The old name as it was just before the statement (after it, it names nothing).
    Optional<LakeTable> known =
        table(from, new BinlogPosition(at.file(), Math.max(0, at.position() - 1)));
    forget(from);
    forget(to);
    if (known.isEmpty()) {
      if (targets.matches(to)) {
        LOG.info(
            "{} was renamed in MySQL to {}, which the sync takes, at binlog {}: syncing it like a"
                + " created table",
            from,
            to,
            at.text());
        createRenamed(event);
      }
      return;
    }
    LakeTable table = known.get();
    if (table.stoppedAt != null) {
      return; // stopped before: it stays stopped under its old name
    }
    TableIdentifier target = targets.identifier(to);
    if (at.compareTo(table.schemaPosition) <= 0) {
      // applied before a restore; the Iceberg rename may not have been reached
      List<RenamedTables.FormerName> names = RenamedTables.of(table.table.properties());
      if (!names.isEmpty()
          && names.get(names.size() - 1).until().equals(at)
          && !target.toString().equals(table.key)
          && !catalog.tableExists(target)) {
        renameInCatalog(table, target, event);
      }
      return;
    }
    if (!targets.matches(to)) {
      if (table.routed) {
        LOG.warn(
            "{} was renamed in MySQL to {}, which the sync does not take, at binlog {}; its rows"
                + " stay in {} with those of the other tables of route '{}'",
            from,
            to,
            at.text(),
            table.key,
            table.source);
      } else {
        stop(
            table,
            event,
            "the table was renamed to "
                + to
                + ", which the sync does not take (--tables, --exclude). The Iceberg table keeps"
                + " its rows; drop it when they are no longer needed");
      }
      return;
    }
    if (target.toString().equals(table.key)) {
      // one route's table: later rows name their new table in _source_table
      LOG.info(
          "{} was renamed in MySQL to {} at binlog {}; both land in {}",
          from,
          to,
          at.text(),
          table.key);
      return;
    }
    if (table.routed
        || targets.route(to).isPresent()
        || !target.namespace().equals(SyncTargets.lakeTable(table.key).namespace())
        || catalog.tableExists(target)) {
      String reason =
          "the table was renamed to "
              + to
              + ", which lands in Iceberg table "
              + target
              + (catalog.tableExists(target) ? " (it exists)" : "")
              + ": the sync goes on there like for a created table; this Iceberg table keeps its"
              + " rows";
      if (table.routed) {
        LOG.warn("{} at binlog {}: {}", from, at.text(), reason);
      } else {
        stop(table, event, reason);
      }
      createRenamed(event);
      return;
    }
    SchemaEvolution.Plan plan =
        event
            .after()
            .map(after -> SchemaEvolution.plan(table.schema, after, event.ddl()))
            .orElse(null);
    boolean evolve = plan != null && plan.refusal().isEmpty() && plan.changes();
    // Rows after the rename are a new schema version, whatever name they come under: the
    // committer commits them after the rows before it.
    commit(
        table,
        event,
        transaction -> {
          if (evolve) {
            UpdateSchema update = transaction.updateSchema();
            steps(update, plan);
            update.commit();
          }
          recordVersion(transaction, table, event, transaction.table().schema().schemaId());
          transaction
              .updateProperties()
              .set(SyncProperties.SOURCE_TABLE, to)
              .set(
                  SyncProperties.RENAMED_FROM,
                  RenamedTables.with(
                      transaction.table().properties(),
                      new RenamedTables.FormerName(at, from, table.key)))
              .commit();
        });
    Optional<LakeTable> renamed = renameInCatalog(table, target, event);
    if (renamed.isPresent() && plan != null && plan.refusal().isPresent()) {
      stop(renamed.get(), event, unrepresentable(renamed.get(), event, plan.refusal().get()));
    }
  }

  /**
   * Renames the Iceberg table to its new name, whose properties already say so.
   *
   * @return the table under its new name; empty when the catalog cannot rename tables: then the
   *     table stops under its old name and the new name starts like a created table
   */
  private Optional<LakeTable> renameInCatalog(
      LakeTable table, TableIdentifier target, DdlEvent event) {
    TableIdentifier old = SyncTargets.lakeTable(table.key);
    try {
      catalog.renameTable(old, target);
    } catch (UnsupportedOperationException cannot) {
      stop(
          table,
          event,
          "the table was renamed to "
              + event.qualifiedName()
              + " and the catalog cannot rename Iceberg tables ("
              + cannot.getMessage()
              + "). The sync goes on in a new Iceberg table "
              + target
              + "; this one keeps its rows");
      createRenamed(event);
      return Optional.empty();
    }
    byIdentifier.remove(old);
    forget(event.renamedFrom().orElseThrow());
    forget(event.qualifiedName());
    renamedTables.clear();
    LOG.info(
        "{} was renamed in MySQL to {} at binlog {}: renamed Iceberg table {} to {}",
        event.renamedFrom().orElseThrow(),
        event.qualifiedName(),
        event.position().text(),
        old,
        target);
    return table(event.qualifiedName());
  }

  /** Forgets what a source name was found to be: a rename changes it. */
  private void forget(String source) {
    tables.remove(source);
    notSynced.remove(source);
  }

  /** Starts syncing a table renamed to a name the sync takes, like a created one. */
  private void createRenamed(DdlEvent event) {
    if (event.after().isEmpty()) {
      LOG.error(
          "{} was renamed in MySQL to {} at binlog {}, which the sync takes, but the CDC source"
              + " does not know its columns (it did not capture {}); it is not synced. Stop floe"
              + " sync and start it with --resnapshot {} to copy it",
          event.renamedFrom().orElseThrow(),
          event.qualifiedName(),
          event.position().text(),
          event.renamedFrom().orElseThrow(),
          event.qualifiedName());
      notSynced.add(event.qualifiedName());
      return;
    }
    // The rows the table had before the rename are not in the binlog from here: the table is
    // marked for the sync's driver to copy them (a route's table is not: its re-copy would copy
    // every table of the route).
    create(event, targets.route(event.qualifiedName()).isEmpty());
  }

  /**
   * Starts a new schema version at the TRUNCATE (same schema): the committer empties the table
   * after the rows of the versions before and before the rows of this one.
   */
  private void truncate(LakeTable table, DdlEvent event) {
    commit(
        table,
        event,
        transaction -> recordVersion(transaction, table, event, table.schema.schemaId()));
    LOG.info(
        "{}: `{}` (binlog {}) empties {} at its place among the changes",
        table.source,
        event.ddl(),
        event.position().text(),
        table.table.name());
  }

  /**
   * Records in the transaction's table properties that a new schema version (schema {@code
   * schemaId}) starts at the DDL's binlog position: {@link SyncProperties#SCHEMA_POSITION} and the
   * history, which starts with the version before (from the table's start) when it is empty.
   */
  private static void recordVersion(
      Transaction transaction, LakeTable table, DdlEvent event, int schemaId) {
    List<HistoryEntry> history = new ArrayList<>(table.history);
    if (history.isEmpty()) {
      history.add(new HistoryEntry(BinlogPosition.NONE, table.schema.schemaId()));
    }
    history.add(new HistoryEntry(event.position(), schemaId));
    transaction
        .updateProperties()
        .set(SyncProperties.SCHEMA_POSITION, event.position().text())
        .set(SyncProperties.SCHEMA_HISTORY, HistoryEntry.format(history))
        .commit();
  }

  /**
   * Creates the Iceberg table of a table created (or renamed into the selection) at the event.
   *
   * @param copyNeeded whether the table has rows the binlog does not bring from here ({@link
   *     SyncProperties#COPY_NEEDED})
   */
  private void create(DdlEvent event, boolean copyNeeded) {
    String source = event.qualifiedName();
    SourceTable definition = event.after().orElseThrow();
    Optional<TableRoute> route = targets.route(source);
    Schema schema;
    try {
      schema =
          route.isPresent()
              ? RouteSchema.union(route.get().text(), List.of(definition))
              : TypeMapping.icebergSchema(definition);
    } catch (FloeException cannotSync) {
      LOG.error(
          "{} was created in MySQL but cannot be synced: {}", source, cannotSync.getMessage());
      notSynced.add(source);
      return;
    }
    TableIdentifier identifier = targets.identifier(source);
    try {
      TableProvisioner.create(
          catalog,
          identifier,
          route.map(r -> r.pattern().pattern()).orElse(source),
          schema,
          org.apache.iceberg.PartitionSpec.unpartitioned(),
          copyNeeded
              ? Map.of(
                  SyncProperties.SCHEMA_POSITION,
                  event.position().text(),
                  SyncProperties.COPY_NEEDED,
                  event.position().text())
              : Map.of(SyncProperties.SCHEMA_POSITION, event.position().text()));
      LOG.info(
          "{} was created in MySQL at binlog {}: syncing it into {}",
          source,
          event.position().text(),
          identifier);
    } catch (AlreadyExistsException exists) {
      LOG.info("{} was created in MySQL; its Iceberg table {} exists", source, identifier);
    }
    notSynced.remove(source);
    table(source)
        .filter(table -> event.position().compareTo(table.schemaPosition) > 0)
        .ifPresent(table -> alter(table, event));
  }

  private void alter(LakeTable table, DdlEvent event) {
    SchemaEvolution.Plan plan =
        table.routed
            ? SchemaEvolution.planRouted(table.schema, event.after().orElseThrow())
            : SchemaEvolution.plan(table.schema, event.after().orElseThrow(), event.ddl());
    if (plan.refusal().isPresent()) {
      stop(table, event, unrepresentable(table, event, plan.refusal().get()));
      return;
    }
    if (!plan.changes()) {
      return;
    }
    try {
      apply(table, event, plan);
    } catch (org.apache.iceberg.exceptions.ValidationException | IllegalArgumentException refused) {
      // e.g. dropping a column the table is partitioned by
      stop(
          table,
          event,
          unrepresentable(table, event, "Iceberg refused it (" + refused.getMessage() + ")"));
    }
  }

  private static String unrepresentable(LakeTable table, DdlEvent event, String reason) {
    return "Iceberg cannot represent it: "
        + reason
        + ". The other tables go on. To sync it again, stop floe sync and start it with"
        + " --resnapshot "
        + event.qualifiedName()
        + (table.routed
            ? ": every table of the route is copied again into a new Iceberg table, "
            : ": that table is copied again into a new Iceberg table, ")
        + "the others resume where they stopped";
  }

  private void apply(LakeTable table, DdlEvent event, SchemaEvolution.Plan plan) {
    commit(
        table,
        event,
        transaction -> {
          UpdateSchema update = transaction.updateSchema();
          steps(update, plan);
          update.commit();
          recordVersion(transaction, table, event, transaction.table().schema().schemaId());
        });
    LOG.info(
        "{}: applied `{}` (binlog {}) to {}: {}",
        table.source,
        event.ddl(),
        event.position().text(),
        table.table.name(),
        plan.steps());
  }

  private static void steps(UpdateSchema update, SchemaEvolution.Plan plan) {
    for (SchemaEvolution.Step step : plan.steps()) {
      if (step instanceof SchemaEvolution.AddColumn add) {
        update.addColumn(add.name(), add.type());
      } else if (step instanceof SchemaEvolution.DropColumn drop) {
        update.deleteColumn(drop.name());
      } else if (step instanceof SchemaEvolution.RenameColumn rename) {
        update.renameColumn(rename.from(), rename.to());
      } else if (step instanceof SchemaEvolution.WidenColumn widen) {
        update.updateColumn(widen.name(), widen.to());
      } else if (step instanceof SchemaEvolution.MakeOptional optional) {
        update.makeColumnOptional(optional.name());
      } else if (step instanceof SchemaEvolution.MoveColumn move) {
        move.after()
            .ifPresentOrElse(
                after -> update.moveAfter(move.name(), after), () -> update.moveFirst(move.name()));
      }
    }
  }

  private void stop(LakeTable table, DdlEvent event, String reason) {
    String message =
        "Floe stopped syncing "
            + table.source
            + " at binlog "
            + event.position().text()
            + " after `"
            + event.ddl()
            + "`: "
            + reason
            + ".";
    commit(
        table,
        event,
        transaction ->
            transaction
                .updateProperties()
                .set(SyncProperties.STOPPED, message)
                .set(SyncProperties.STOPPED_POSITION, event.position().text())
                .commit());
    LOG.error(message);
  }

  /** Commits one change to the table, retrying when a concurrent commit (the writer's) won. */
  private void commit(
      LakeTable table, DdlEvent event, java.util.function.Consumer<Transaction> change) {
    for (int attempt = 1; ; attempt++) {
      table.table.refresh();
      Transaction transaction = table.table.newTransaction();
      change.accept(transaction);
      try {
        transaction.commitTransaction();
        table.reload();
        return;
      } catch (CommitFailedException conflict) {
        if (attempt == COMMIT_ATTEMPTS) {
          throw new IllegalStateException(
              "cannot apply `" + event.ddl() + "` to " + table.table.name(), conflict);
        }
        LOG.info("{}: retrying the schema change after a concurrent commit", table.table.name());
      }
    }
  }
}
