package dev.floe.core.sync;

/**
 * The table properties Floe's sync keeps on each Iceberg table it writes (documented in
 * docs/sync.md and docs/schema-changes.md).
 */
public final class SyncProperties {

  /** The MySQL table ({@code database.table}) the Iceberg table is synced from. */
  public static final String SOURCE_TABLE = "floe.source-table";

  /**
   * The binlog position ({@code file:offset}) of the last DDL applied to the table; a replayed DDL
   * at or before it is skipped.
   */
  public static final String SCHEMA_POSITION = "floe.schema-position";

  /**
   * Which Iceberg schema held from which binlog position: {@code file:offset>schemaId} entries
   * separated by {@code ;}, oldest first (the first entry, at the empty position, is the schema
   * before the first DDL). Rows replayed from before a DDL are read with the schema of their time.
   */
  public static final String SCHEMA_HISTORY = "floe.schema-history";

  /** Why the sync stopped writing this table (a DDL Iceberg cannot represent, a dropped table). */
  public static final String STOPPED = "floe.sync-stopped";

  /** The binlog position ({@code file:offset}) after which the table's changes are not applied. */
  public static final String STOPPED_POSITION = "floe.sync-stopped-position";

  /**
   * The names the table had before MySQL renamed it: {@code
   * file:offset>database.table>namespace.table} entries separated by {@code ;}, oldest first, each
   * the binlog position of a {@code RENAME} and the MySQL table and Iceberg identifier the table
   * had before it. Rows replayed from before a rename are found by their old name through it.
   */
  public static final String RENAMED_FROM = "floe.renamed-from";

  private SyncProperties() {}
}
