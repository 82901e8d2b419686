package dev.floe.core.sync;

import java.util.Map;

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

  /**
   * The binlog position ({@code file:offset}) of the {@code RENAME TABLE} that brought the table
   * into the sync's selection from a name it did not take: the Iceberg table was created empty at
   * the rename, and the rows the MySQL table already had are still to be copied. The sync copies
   * them (stopping its job with a savepoint, then the partial re-copy of {@code --resnapshot}) and
   * the copy's new table no longer has the property.
   */
  public static final String COPY_NEEDED = "floe.copy-needed";

  /**
   * Iceberg's commit retries on every table the sync creates: a commit that loses the race for the
   * catalog's pointer (to the keeper's compaction, to another writer) is refreshed and applied
   * again up to 20 times, waiting 100 ms doubling to 5 s between tries (Iceberg's defaults: 4
   * times, up to 60 s). The sync commits every checkpoint and the keeper commits each file group on
   * its own, so several writers meet on one busy table; 4 retries let some of their commits fail
   * (measured: 4 writers x 25 commits on a PostgreSQL JdbcCatalog), 20 let all land. A property
   * already given for the table wins; for tables created before, set them with the table's {@code
   * ALTER TABLE ... SET TBLPROPERTIES}.
   */
  public static final Map<String, String> COMMIT_RETRY_DEFAULTS =
      Map.of(
          "commit.retry.num-retries", "20",
          "commit.retry.min-wait-ms", "100",
          "commit.retry.max-wait-ms", "5000");

  private SyncProperties() {}
}
