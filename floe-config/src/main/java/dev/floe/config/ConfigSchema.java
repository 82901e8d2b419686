package dev.floe.config;

import dev.floe.config.ConfigKey.Kind;
import dev.floe.core.config.CatalogType;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every key {@code floe.yaml} understands, in one place: the loader validates against it and the
 * reference ({@code docs/config.md}, {@code floe config --reference}) is generated from it.
 */
public final class ConfigSchema {

  public static final ConfigKey DATA_DIR =
      key(
          "data-dir",
          Kind.PATH,
          "./floe-data",
          "Where Floe keeps its embedded catalog (catalog.db), the warehouse (warehouse/), its"
              + " state and logs. Relative paths are resolved against the working directory."
              + " --data-dir overrides it.");
  public static final ConfigKey CATALOG_TYPE =
      new ConfigKey(
          "catalog.type",
          Kind.CHOICE,
          Optional.of("embedded"),
          "The Iceberg catalog. embedded: a JDBC catalog in the SQLite file <data-dir>/catalog.db;"
              + " jdbc: a JDBC catalog on a database server at catalog.uri; rest: a REST catalog"
              + " at catalog.uri; hadoop: a file-system catalog in catalog.warehouse.",
          Arrays.stream(CatalogType.values()).map(CatalogType::configName).toList(),
          0,
          false);
  public static final ConfigKey CATALOG_NAME =
      key(
          "catalog.name",
          Kind.STRING,
          "floe",
          "The catalog's name; SQL refers to tables as <name>.<namespace>.<table>, and the JDBC"
              + " catalog keeps it in every row of its tables.");
  public static final ConfigKey CATALOG_URI =
      key(
          "catalog.uri",
          Kind.STRING,
          null,
          "Where the catalog service is: a JDBC URL (jdbc; drivers for SQLite and"
              + " MySQL/MariaDB are included) or an http(s) URL (rest). Required for those types; not used by embedded and hadoop.");
  public static final ConfigKey CATALOG_WAREHOUSE =
      key(
          "catalog.warehouse",
          Kind.STRING,
          "<data-dir>/warehouse for embedded",
          "The root location of new tables (a path or a file:, hdfs:, s3: URI). Required for"
              + " hadoop and jdbc.");
  public static final ConfigKey CATALOG_PROPERTIES =
      key(
          "catalog.properties",
          Kind.MAP,
          null,
          "More Iceberg catalog properties, passed as they are (e.g. jdbc.user, jdbc.password,"
              + " io-impl, s3.endpoint). Values of keys that contain password, secret, token or"
              + " credential are never printed.");
  public static final ConfigKey SOURCE_URL =
      key(
          "source.url",
          Kind.STRING,
          null,
          "The default MySQL/MariaDB source, mysql://USER@HOST[:PORT][/DATABASE], used when a"
              + " command gets no --source.");
  public static final ConfigKey SOURCE_PASSWORD =
      new ConfigKey(
          "source.password",
          Kind.STRING,
          Optional.empty(),
          "The source password, best written as ${env:NAME} so it stays out of the file. The"
              + " FLOE_SOURCE_PASSWORD environment variable, or a password in the URL, takes"
              + " precedence. Never printed.",
          List.of(),
          0,
          true);
  public static final ConfigKey DOCTOR_MIN_BINLOG_RETENTION_HOURS =
      new ConfigKey(
          "doctor.min-binlog-retention-hours",
          Kind.INTEGER,
          Optional.of("24"),
          "The binlog retention floe doctor (and every sync start) requires, in hours: a sync"
              + " stopped for longer than the retention cannot resume without a new snapshot.",
          List.of(),
          0,
          false);

  public static final ConfigKey SYNC_TABLES =
      key(
          "sync.tables",
          Kind.LIST,
          null,
          "floe sync: regular expressions over database.table of the tables to sync (a list, or"
              + " one string). --tables replaces it.");
  public static final ConfigKey SYNC_EXCLUDE =
      key(
          "sync.exclude",
          Kind.LIST,
          null,
          "floe sync: regular expressions over database.table of tables to leave out. --exclude"
              + " replaces it.");
  public static final ConfigKey SYNC_TARGET_NAMESPACE =
      key(
          "sync.target-namespace",
          Kind.STRING,
          "the MySQL database name",
          "floe sync: the Iceberg namespace every synced table lands in.");
  public static final ConfigKey SYNC_CHECKPOINT_INTERVAL_SECONDS =
      integer(
          "sync.checkpoint-interval-seconds",
          10,
          1,
          "floe sync: seconds between commits to Iceberg (Flink checkpoints).");
  public static final ConfigKey SYNC_PARALLELISM =
      integer(
          "sync.parallelism",
          2,
          1,
          "floe sync: snapshot chunk workers (each reads a key range and writes its files) and"
              + " binlog-phase Iceberg writers.");
  public static final ConfigKey SYNC_CHUNK_ROWS =
      integer(
          "sync.chunk-rows",
          100_000,
          1,
          "floe sync: rows per initial-snapshot chunk, a primary-key range read without locks"
              + " into its own data files; a stopped or killed sync resumes after the last"
              + " committed chunk.");
  public static final ConfigKey SYNC_SERVER_TIME_ZONE =
      key(
          "sync.server-time-zone",
          Kind.STRING,
          "asked from the server",
          "floe sync: the source's time zone for TIMESTAMP columns, e.g. Asia/Shanghai or +08:00.");

  public static final ConfigKey SYNC_SNAPSHOT_ROWS_PER_SECOND =
      integer(
          "sync.snapshot-rows-per-second",
          0,
          0,
          "floe sync: cap on the rows per second the initial snapshot reads from MySQL, to spare"
              + " a busy source; 0 means no cap.");
  public static final ConfigKey SYNC_PARTITIONS =
      key(
          "sync.partitions",
          Kind.MAP,
          "unpartitioned",
          "floe sync: partitioning of the tables sync creates, per source table: database.table"
              + " -> a comma-separated list of identity(col) or col, year(col), month(col),"
              + " day(col), hour(col), bucket(N, col), truncate(N, col).");
  public static final ConfigKey SYNC_ROUTES =
      key(
          "sync.routes",
          Kind.LIST,
          "none",
          "floe sync: routes 'REGEX -> NAMESPACE.TABLE' merging every synced table whose"
              + " database.table matches REGEX into one Iceberg table (sharded tables), with"
              + " _source_db and _source_table columns in its identifier fields; the first"
              + " matching route wins. --route replaces it.");
  public static final ConfigKey SYNC_FLINK =
      key(
          "sync.flink",
          Kind.STRING,
          "a local Flink in the floe sync process",
          "floe sync: HOST:PORT of the REST endpoint (rest.port) of a Flink cluster's JobManager"
              + " that runs the binlog job; the initial snapshot copy stays in the floe sync"
              + " process. The cluster must reach the catalog, the warehouse, the sync's state"
              + " directory (same path) and MySQL. --flink replaces it.");

  public static final List<ConfigKey> KEYS =
      List.of(
          DATA_DIR,
          CATALOG_TYPE,
          CATALOG_NAME,
          CATALOG_URI,
          CATALOG_WAREHOUSE,
          CATALOG_PROPERTIES,
          SOURCE_URL,
          SOURCE_PASSWORD,
          DOCTOR_MIN_BINLOG_RETENTION_HOURS,
          SYNC_TABLES,
          SYNC_EXCLUDE,
          SYNC_TARGET_NAMESPACE,
          SYNC_CHECKPOINT_INTERVAL_SECONDS,
          SYNC_PARALLELISM,
          SYNC_CHUNK_ROWS,
          SYNC_SERVER_TIME_ZONE,
          SYNC_SNAPSHOT_ROWS_PER_SECOND,
          SYNC_PARTITIONS,
          SYNC_ROUTES,
          SYNC_FLINK);

  private ConfigSchema() {}

  /** The key at a dotted path. */
  public static Optional<ConfigKey> key(String path) {
    return KEYS.stream().filter(key -> key.path().equals(path)).findFirst();
  }

  /** Section paths ({@code catalog}, {@code source}, ...). */
  public static Set<String> sections() {
    Set<String> sections = new LinkedHashSet<>();
    KEYS.stream()
        .map(ConfigKey::section)
        .filter(section -> !section.isEmpty())
        .forEach(sections::add);
    return sections;
  }

  /** Names allowed directly under a section ("" for the top level): keys and sub-sections. */
  public static List<String> namesUnder(String section) {
    Set<String> names = new LinkedHashSet<>();
    for (ConfigKey key : KEYS) {
      String path = key.path();
      String prefix = section.isEmpty() ? "" : section + ".";
      if (path.startsWith(prefix)) {
        String rest = path.substring(prefix.length());
        int dot = rest.indexOf('.');
        names.add(dot < 0 ? rest : rest.substring(0, dot));
      }
    }
    return List.copyOf(names);
  }

  private static ConfigKey integer(
      String path, long defaultValue, long minimum, String description) {
    return new ConfigKey(
        path,
        Kind.INTEGER,
        Optional.of(Long.toString(defaultValue)),
        description,
        List.of(),
        minimum,
        false);
  }

  private static ConfigKey key(String path, Kind kind, String defaultValue, String description) {
    return new ConfigKey(
        path, kind, Optional.ofNullable(defaultValue), description, List.of(), 0, false);
  }
}
