package dev.floe.config;

import dev.floe.config.ConfigKey.Kind;
import dev.floe.core.alert.AlertChannelType;
import dev.floe.core.alert.AlertRule;
import dev.floe.core.alert.AlertThreshold;
import dev.floe.core.alert.SmtpSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.MaintenanceIntervals;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.SizeText;
import dev.floe.core.config.StoreSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.config.WorkerGroupKind;
import dev.floe.core.config.WorkerGroupSettings;
import dev.floe.core.maintenance.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
          "Where the catalog service is: a JDBC URL (jdbc; drivers for PostgreSQL, MySQL/MariaDB"
              + " and SQLite are included) or an http(s) URL (rest). Required for those types; not"
              + " used by embedded and hadoop. Checked when a command opens the catalog, before it"
              + " does any work.");
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
  public static final ConfigKey CATALOG_HADOOP =
      key(
          "catalog.hadoop",
          Kind.MAP,
          "Hadoop's defaults",
          "For a warehouse on HDFS (hdfs:// locations, read and written through Iceberg's"
              + " HadoopFileIO with Hadoop's HDFS client): Hadoop client settings, passed as they"
              + " are, e.g. { dfs.replication: '2', fs.defaultFS: 'hdfs://namenode:8020' } or a"
              + " NameNode HA nameservice's dfs.* keys. They travel with the catalog's properties"
              + " (as hadoop.KEY) to the sync's Flink job, floe sql and the optimizer workers, and"
              + " a sync's state on HDFS or S3 (sync.state-dir) uses them too (for S3, Hadoop"
              + " S3A's fs.s3a.* keys, over the ones Floe derives from the catalog's s3-* keys)."
              + " The warehouse's NameNode is checked (it answers) before a command does any"
              + " work.");
  public static final ConfigKey CATALOG_S3_ENDPOINT =
      key(
          "catalog.s3-endpoint",
          Kind.STRING,
          "AWS's endpoint for the region",
          "For a warehouse on S3 or S3-compatible storage (s3:// locations, read and written"
              + " through Iceberg's S3FileIO): the endpoint URL, e.g. http://minio:9000. Setting"
              + " any s3-* key, or an s3:// warehouse, makes S3FileIO the catalog's FileIO (unless"
              + " catalog.properties sets io-impl). The bucket is checked (reachable, credentials"
              + " accepted, bucket exists) before a command does any work.");
  public static final ConfigKey CATALOG_S3_REGION =
      key(
          "catalog.s3-region",
          Kind.STRING,
          "the AWS SDK's (AWS_REGION, ~/.aws/config)",
          "The S3 region to sign requests for, e.g. us-east-1 (S3-compatible servers accept any).");
  public static final ConfigKey CATALOG_S3_PATH_STYLE_ACCESS =
      new ConfigKey(
          "catalog.s3-path-style-access",
          Kind.CHOICE,
          Optional.of("false"),
          "Whether buckets are addressed as ENDPOINT/BUCKET/KEY (true: most S3-compatible"
              + " servers) rather than BUCKET.ENDPOINT/KEY (false: AWS S3).",
          List.of("true", "false"),
          0,
          false);
  public static final ConfigKey CATALOG_S3_ACCESS_KEY_ID =
      new ConfigKey(
          "catalog.s3-access-key-id",
          Kind.STRING,
          Optional.of("the AWS SDK's credentials (environment, profile, instance role)"),
          "The S3 access key id, best written as ${env:NAME}; needs catalog.s3-secret-access-key."
              + " Never printed.",
          List.of(),
          0,
          true);
  public static final ConfigKey CATALOG_S3_SECRET_ACCESS_KEY =
      new ConfigKey(
          "catalog.s3-secret-access-key",
          Kind.STRING,
          Optional.of("the AWS SDK's credentials"),
          "The S3 secret access key, best written as ${env:NAME}; needs"
              + " catalog.s3-access-key-id. Never printed.",
          List.of(),
          0,
          true);
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
  public static final ConfigKey SYNC_HEARTBEAT_INTERVAL_SECONDS =
      integer(
          "sync.heartbeat-interval-seconds",
          SyncSettings.DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
          1,
          "floe sync: seconds between binlog heartbeats MySQL sends while no change arrives, so"
              + " that an idle sync's position and lag stay current (lag at most about this plus"
              + " the checkpoint interval).");
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
          SyncSettings.DEFAULT_CHUNK_ROWS,
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
              + " directory (sync.state-dir: the same path, HDFS or S3) and MySQL. --flink replaces it.");
  public static final ConfigKey SYNC_STATE_DIR =
      key(
          "sync.state-dir",
          Kind.STRING,
          "<data-dir>/sync",
          "floe sync: where each sync keeps its state, in a directory per sync name: Flink's"
              + " checkpoints and savepoints and the snapshot state. A local path,"
              + " hdfs://NAMENODE:PORT/PATH to keep it on HDFS (with the Hadoop settings of"
              + " catalog.hadoop) or s3://BUCKET/PATH to keep it on S3 (Hadoop's S3A, with the"
              + " catalog's s3-* settings; catalog.hadoop's fs.s3a.* keys override them), read and"
              + " written through Flink's file-system API; a sync on a Flink cluster needs one of"
              + " these unless every machine mounts the same directory. Other object stores"
              + " (gs://, oss://) are refused. Checked (the file system answers) before the sync"
              + " does any work.");
  public static final ConfigKey SYNC_TOPICS =
      key(
          "sync.topics",
          Kind.STRING,
          null,
          "floe sync --source kafka://...: a regular expression over whole topic names; every"
              + " matching topic is read, also one created later. --topics replaces it.");
  public static final ConfigKey SYNC_FORMAT =
      new ConfigKey(
          "sync.format",
          Kind.CHOICE,
          Optional.empty(),
          "floe sync --source kafka://...: how the messages are written: canal-json (Canal's flat"
              + " messages), debezium-json (with or without the schema envelope), maxwell-json, or"
              + " json (plain JSON objects, one row each, into sync.target). --format replaces"
              + " it.",
          List.of("canal-json", "debezium-json", "maxwell-json", "json"),
          0,
          false);
  public static final ConfigKey SYNC_TARGET =
      key(
          "sync.target",
          Kind.STRING,
          null,
          "floe sync --source kafka://... --format json: the Iceberg table (NAMESPACE.TABLE) every"
              + " message is a row of; created from the first messages' fields (types inferred),"
              + " or an existing table whose types stand. --target replaces it.");
  public static final ConfigKey SYNC_KEY =
      key(
          "sync.key",
          Kind.LIST,
          "none: rows are appended",
          "floe sync --source kafka://... --format json: the columns rows are upserted by (the"
              + " table's identifier fields); without it rows are appended. --key replaces it.");
  public static final ConfigKey SYNC_KAFKA_SCHEMA =
      key(
          "sync.kafka.schema",
          Kind.STRING,
          "none: the existing table's columns, else inferred from the messages",
          "floe sync --source kafka://... --format json: the columns of sync.target as NAME TYPE"
              + " [NOT NULL], comma-separated, e.g. 'id BIGINT NOT NULL, ts TIMESTAMP, name STRING,"
              + " amount DECIMAL(10,2)'; types BOOLEAN, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(P,S),"
              + " STRING, DATE, TIME, TIMESTAMP (without zone), TIMESTAMPTZ. A missing table is"
              + " created from it (sync.key columns NOT NULL and its identifier fields,"
              + " partitioned by sync.partitions for the table), so text such as"
              + " '2026-03-01T10:00:00' lands as a timestamp; an existing table must have these"
              + " columns with these types or the sync refuses to start (it never changes the"
              + " table to fit). New fields of later messages still become optional columns."
              + " --schema replaces it.");
  public static final ConfigKey SYNC_STARTING_OFFSETS =
      key(
          "sync.starting-offsets",
          Kind.STRING,
          "earliest",
          "floe sync --source kafka://...: where a partition no synced table holds offsets of is"
              + " read from: earliest, latest or timestamp:EPOCH_MS. A restart goes on from the"
              + " checkpoint, or from the tables' own offsets. --starting-offsets replaces it.");
  public static final ConfigKey SYNC_KAFKA_PROPERTIES =
      key(
          "sync.kafka.properties",
          Kind.MAP,
          "none",
          "floe sync --source kafka://...: Kafka client properties passed as they are (e.g."
              + " security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location);"
              + " values of keys that contain password, secret, jaas, token, credential, private"
              + " or user.info are never printed. --kafka-property adds to them.");
  public static final ConfigKey SYNC_DEAD_LETTER =
      key(
          "sync.dead-letter",
          Kind.STRING,
          "floe_rejected.messages",
          "floe sync --source kafka://...: the Iceberg table (NS.TABLE) a message that cannot be"
              + " applied goes to, with its topic, partition, offset, timestamp, raw key and value"
              + " and the reason. --dead-letter replaces it.");
  public static final ConfigKey SYNC_ON_BAD_MESSAGE =
      new ConfigKey(
          "sync.on-bad-message",
          Kind.CHOICE,
          Optional.of("dead-letter"),
          "floe sync --source kafka://...: what a message that cannot be applied does:"
              + " dead-letter (it goes to sync.dead-letter and the sync goes on) or fail (the sync"
              + " stops, naming its topic, partition, offset and reason). --on-bad-message"
              + " replaces it.",
          List.of("dead-letter", "fail"),
          0,
          false);

  public static final ConfigKey KEEPER_LISTEN =
      key(
          "keeper.listen",
          Kind.ADDRESS,
          KeeperSettings.DEFAULT_LISTEN.toString(),
          "floe serve: where the keeper's HTTP API listens, HOST:PORT ([::1]:8420 for IPv6)."
              + " floe serve refuses an address other than loopback (127.0.0.0/8, ::1,"
              + " localhost) without keeper.api-token.");
  public static final ConfigKey KEEPER_API_TOKEN =
      new ConfigKey(
          "keeper.api-token",
          Kind.STRING,
          Optional.empty(),
          "floe serve: the bearer token every request to the keeper's API must carry, best"
              + " written as ${env:NAME} so it stays out of the file. Never printed.",
          List.of(),
          0,
          true);
  public static final ConfigKey KEEPER_URL =
      key(
          "keeper.url",
          Kind.STRING,
          "none: no report",
          "floe sync: the keeper (floe serve) to report the sync's status to every 5 s,"
              + " http(s)://HOST:PORT, e.g. http://127.0.0.1:8420; with keeper.api-token (or"
              + " FLOE_KEEPER_TOKEN) it sends the token. --keeper replaces it.");
  public static final ConfigKey KEEPER_REFRESH_INTERVAL_SECONDS =
      integer(
          "keeper.refresh-interval-seconds",
          KeeperSettings.DEFAULT_REFRESH_INTERVAL.toSeconds(),
          1,
          "floe serve: seconds between the keeper's reads of the catalogs for new, changed and"
              + " dropped tables.");
  public static final ConfigKey KEEPER_QUARANTINE_AFTER_FAILURES =
      integer(
          "keeper.quarantine-after-failures",
          KeeperSettings.DEFAULT_QUARANTINE_AFTER_FAILURES,
          1,
          "floe serve: failed optimize runs of a table in a row (each backed off per"
              + " floe.optimize.retry.*) after which the keeper quarantines the table: it is left"
              + " alone, across restarts, until released with POST"
              + " /api/v1/tables/NS.NAME/resume.");
  public static final ConfigKey KEEPER_TASK_TIMEOUT =
      duration(
          "keeper.task-timeout",
          KeeperSettings.DEFAULT_TASK_TIMEOUT,
          "floe serve: the longest one optimize task (a file group's rewrite) may run; a"
              + " longer one is abandoned, its output removed, and counted as a failure of its"
              + " table.");
  public static final ConfigKey KEEPER_HISTORY_RETENTION =
      duration(
          "keeper.history-retention",
          KeeperSettings.DEFAULT_HISTORY_RETENTION,
          "floe serve: how long the keeper keeps its record of runs and events.");
  public static final ConfigKey KEEPER_INCLUDE =
      key(
          "keeper.include",
          Kind.PATTERNS,
          "all tables",
          "floe serve: regular expressions over NAMESPACE.TABLE of the top-level catalog's"
              + " tables the keeper maintains (a list, or one string).");
  public static final ConfigKey KEEPER_EXCLUDE =
      key(
          "keeper.exclude",
          Kind.PATTERNS,
          "none",
          "floe serve: regular expressions over NAMESPACE.TABLE of the top-level catalog's"
              + " tables the keeper leaves alone (a list, or one string).");
  public static final ConfigKey KEEPER_STORE_URL =
      key(
          "keeper.store.url",
          Kind.STRING,
          "jdbc:sqlite:<data-dir>/" + StoreSettings.DEFAULT_FILE_NAME,
          "floe serve: the database where the keeper keeps its state (tables, runs, events): a"
              + " jdbc:sqlite: or jdbc:postgresql: URL. A password in it is never printed.");
  public static final ConfigKey KEEPER_STORE_USER =
      key("keeper.store.user", Kind.STRING, null, "floe serve: the store database's user.");
  public static final ConfigKey KEEPER_STORE_PASSWORD =
      new ConfigKey(
          "keeper.store.password",
          Kind.STRING,
          Optional.empty(),
          "floe serve: the store database's password, best written as ${env:NAME}. Never"
              + " printed.",
          List.of(),
          0,
          true);
  public static final ConfigKey KEEPER_OPTIMIZER_THREADS =
      new ConfigKey(
          "keeper.optimizer.threads",
          Kind.INTEGER,
          Optional.of("half the machine's cores, at least 1"),
          "floe serve: optimize (file rewrite) tasks the keeper runs at once on threads of its"
              + " own when keeper.optimizer.groups lists no group (the one group is then a"
              + " threads group named default of this size). Not allowed beside"
              + " keeper.optimizer.groups.",
          List.of(),
          1,
          false);
  public static final ConfigKey KEEPER_OPTIMIZER_TABLE_SHARE =
      key(
          "keeper.optimizer.table-share",
          Kind.FRACTION,
          Double.toString(OptimizerSettings.DEFAULT_TABLE_SHARE),
          "floe serve: the largest share of keeper.optimizer.threads that one table's tasks may"
              + " hold at once.");
  public static final ConfigKey KEEPER_OPTIMIZER_LEASE_TIMEOUT =
      duration(
          "keeper.optimizer.lease-timeout",
          OptimizerSettings.DEFAULT_LEASE_TIMEOUT,
          "floe serve: how long an optimize task's lease lasts without being renewed; after"
              + " that another optimizer may take the task over.");
  public static final ConfigKey KEEPER_OPTIMIZER_GROUPS =
      key(
          "keeper.optimizer.groups",
          Kind.GROUPS,
          "one threads group named default, of keeper.optimizer.threads",
          "floe serve: the groups of workers that run optimize tasks, each kept at its target by"
              + " the keeper; each item has the keys below. kind threads: threads inside floe"
              + " serve (at most one such group: they would share its JVM); processes: floe"
              + " optimizer processes the keeper starts and supervises on its machine; flink: one"
              + " Flink job, of parallelism target, the keeper runs on the cluster at flink;"
              + " external: workers someone else starts (floe optimizer), of which the keeper only"
              + " checks the number. A table picks its group with the table property"
              + " floe.keeper.group, else keeper.optimizer.default-group. E.g. - { name: local,"
              + " kind: processes, target: 2 }.");
  public static final ConfigKey GROUP_NAME =
      key(
          "keeper.optimizer.groups[].name",
          Kind.STRING,
          null,
          "Required: the group's name, as tables give it in floe.keeper.group; 1 to 64 letters,"
              + " digits, - and _, starting with a letter or digit, each different from the"
              + " others ignoring case.");
  public static final ConfigKey GROUP_KIND =
      new ConfigKey(
          "keeper.optimizer.groups[].kind",
          Kind.CHOICE,
          Optional.empty(),
          "Required: where the group's workers run and who starts them (see"
              + " keeper.optimizer.groups).",
          Arrays.stream(WorkerGroupKind.values()).map(WorkerGroupKind::configName).toList(),
          0,
          false);
  public static final ConfigKey GROUP_TARGET =
      new ConfigKey(
          "keeper.optimizer.groups[].target",
          Kind.INTEGER,
          Optional.empty(),
          "Required: what the keeper keeps the group at, threads for kind threads and workers for"
              + " the others (processes, Flink subtasks, registered workers); below it for longer"
              + " than keeper.optimizer.capacity-grace raises capacity_below_target.",
          List.of(),
          1,
          false);
  public static final ConfigKey GROUP_THREADS_PER_WORKER =
      integer(
          "keeper.optimizer.groups[].threads-per-worker",
          WorkerGroupSettings.DEFAULT_THREADS_PER_WORKER,
          1,
          "Kinds processes and flink only: optimize tasks each worker runs at once. (A threads"
              + " group's target is its thread count; external workers say their own.)");
  public static final ConfigKey GROUP_HEAP =
      new ConfigKey(
          "keeper.optimizer.groups[].heap",
          Kind.SIZE,
          Optional.of(
              SizeText.format(WorkerGroupSettings.DEFAULT_HEAP_BYTES_PER_THREAD)
                  + " per thread of the worker"),
          "Kind processes only: the heap (-Xmx) of each floe optimizer process. The default gives"
              + " each thread 512m because one rewrite task completes within 512 MiB, even with"
              + " millions of equality-deleted keys (docs/optimize.md).",
          List.of(),
          WorkerGroupSettings.MINIMUM_HEAP_BYTES,
          false);
  public static final ConfigKey GROUP_JAVA =
      key(
          "keeper.optimizer.groups[].java",
          Kind.STRING,
          "the Java that runs floe serve",
          "Kind processes only: the Java executable (a path, or a name on the PATH) that runs each"
              + " floe optimizer process, e.g. /usr/lib/jvm/java-17-openjdk-amd64/bin/java.");
  public static final ConfigKey GROUP_FLINK =
      key(
          "keeper.optimizer.groups[].flink",
          Kind.HTTP_ADDRESS,
          null,
          "Kind flink only, and required for it: the REST endpoint (rest.port) of the JobManager"
              + " of the Flink cluster that runs the group's job, e.g. flink-jm:8081 or"
              + " https://flink.example.com:8443.");

  /**
   * The keys of one {@code keeper.optimizer.groups} item, in the order the reference lists them.
   */
  public static final List<ConfigKey> GROUP_KEYS =
      List.of(
          GROUP_NAME,
          GROUP_KIND,
          GROUP_TARGET,
          GROUP_THREADS_PER_WORKER,
          GROUP_HEAP,
          GROUP_JAVA,
          GROUP_FLINK);

  public static final ConfigKey KEEPER_OPTIMIZER_DEFAULT_GROUP =
      key(
          "keeper.optimizer.default-group",
          Kind.STRING,
          "the first group listed",
          "floe serve: the group that runs the tasks of tables without the floe.keeper.group"
              + " property: the name of one of keeper.optimizer.groups (ignoring case), or default"
              + " when none are listed.");
  public static final ConfigKey KEEPER_OPTIMIZER_CAPACITY_GRACE =
      duration(
          "keeper.optimizer.capacity-grace",
          OptimizerSettings.DEFAULT_CAPACITY_GRACE,
          "floe serve: how long a worker group may stay below its target before the keeper raises"
              + " capacity_below_target (and capacity_restored once it is back). The default"
              + " covers starting a worker again (a process within seconds, a Flink job"
              + " resubmitted within about a minute) with a retry or two, so a routine restart"
              + " raises nothing, while a group that cannot start is told within minutes.");
  public static final ConfigKey KEEPER_MAINTENANCE_EXPIRE_INTERVAL =
      duration(
          "keeper.maintenance.expire-interval",
          MaintenanceIntervals.DEFAULT_EXPIRE,
          "floe serve: how often the keeper expires each table's old snapshots.");
  public static final ConfigKey KEEPER_MAINTENANCE_METADATA_INTERVAL =
      duration(
          "keeper.maintenance.metadata-interval",
          MaintenanceIntervals.DEFAULT_METADATA,
          "floe serve: how often the keeper runs each table's metadata maintenance.");
  public static final ConfigKey KEEPER_MAINTENANCE_ORPHAN_INTERVAL =
      duration(
          "keeper.maintenance.orphan-interval",
          MaintenanceIntervals.DEFAULT_ORPHANS,
          "floe serve: how often the keeper removes each table's orphan files.");
  public static final ConfigKey KEEPER_CATALOGS =
      key(
          "keeper.catalogs",
          Kind.CATALOGS,
          "none",
          "floe serve: more catalogs the keeper maintains beside the top-level one. Each item has"
              + " the keys of the catalog section (name, type, uri, warehouse, properties),"
              + " validated the same way, plus include and exclude as in keeper.include and"
              + " keeper.exclude; name and type are required, type embedded is not allowed (the"
              + " embedded catalog is the top-level one), and each name must differ from the"
              + " others and from catalog.name (ignoring case). E.g. - { name: prod, type: rest,"
              + " uri: http://host:8181, include: ['ods\\..*'] }.");

  public static final ConfigKey KEEPER_ALERTS_RE_NOTIFY =
      key(
          "keeper.alerts.re-notify",
          Kind.DURATION_OR_ZERO,
          "0",
          "floe serve: how often an alert that stays firing is notified again (e.g. 4h); 0: it is"
              + " notified once when it fires and once when it resolves.");
  public static final ConfigKey KEEPER_ALERTS_LINK_BASE =
      key(
          "keeper.alerts.link-base",
          Kind.STRING,
          "http://<keeper.listen>",
          "floe serve: the dashboard's http(s) URL as people reach it (e.g. through a proxy),"
              + " for the links in alert messages, e.g. https://floe.example.com.");

  /** {@code keeper.alerts.rules.RULE.enabled} and every threshold of every rule. */
  public static final List<ConfigKey> ALERT_RULE_KEYS = alertRuleKeys();

  public static final ConfigKey KEEPER_ALERTS_CHANNELS =
      key(
          "keeper.alerts.channels",
          Kind.CHANNELS,
          "none",
          "floe serve: where alert notifications go; each item has the keys below. E.g. - {"
              + " name: ops, type: webhook, url: https://hooks.example/floe, secret:"
              + " ${env:FLOE_HOOK_SECRET} }.");
  public static final ConfigKey CHANNEL_NAME =
      key(
          "keeper.alerts.channels[].name",
          Kind.STRING,
          null,
          "Required: the channel's name, as the API shows it; 1 to 64 letters, digits, - and _,"
              + " each different from the others ignoring case.");
  public static final ConfigKey CHANNEL_TYPE =
      new ConfigKey(
          "keeper.alerts.channels[].type",
          Kind.CHOICE,
          Optional.empty(),
          "Required: the message format. webhook: a JSON body {rule, subject, state, message,"
              + " link, fired_at, resolved_at, sent_at}; slack, dingtalk, feishu (also Lark),"
              + " wecom: those services' incoming-webhook messages; email: SMTP through"
              + " keeper.alerts.smtp.",
          Arrays.stream(AlertChannelType.values()).map(AlertChannelType::configName).toList(),
          0,
          false);
  public static final ConfigKey CHANNEL_URL =
      key(
          "keeper.alerts.channels[].url",
          Kind.STRING,
          null,
          "Required for every type but email: the http(s) URL messages are posted to.");
  public static final ConfigKey CHANNEL_SECRET =
      new ConfigKey(
          "keeper.alerts.channels[].secret",
          Kind.STRING,
          Optional.empty(),
          "webhook: signs each body, header X-Floe-Signature: sha256=HEX (HMAC-SHA256);"
              + " dingtalk and feishu: the robot's signing secret. Best written as ${env:NAME}."
              + " Never printed.",
          List.of(),
          0,
          true);
  public static final ConfigKey CHANNEL_TO =
      key(
          "keeper.alerts.channels[].to",
          Kind.LIST,
          null,
          "Required for type email, and only for it: the recipients' addresses.");

  /** The keys of one {@code keeper.alerts.channels} item, in the order the reference lists them. */
  public static final List<ConfigKey> CHANNEL_KEYS =
      List.of(CHANNEL_NAME, CHANNEL_TYPE, CHANNEL_URL, CHANNEL_SECRET, CHANNEL_TO);

  public static final ConfigKey KEEPER_ALERTS_SMTP_HOST =
      key(
          "keeper.alerts.smtp.host",
          Kind.STRING,
          null,
          "floe serve: the SMTP server of e-mail channels; required when a channel is of type"
              + " email.");
  public static final ConfigKey KEEPER_ALERTS_SMTP_PORT =
      integer(
          "keeper.alerts.smtp.port",
          SmtpSettings.DEFAULT_PORT,
          1,
          "floe serve: the SMTP server's port (at most 65535).");
  public static final ConfigKey KEEPER_ALERTS_SMTP_USER =
      key(
          "keeper.alerts.smtp.user",
          Kind.STRING,
          null,
          "floe serve: the SMTP user; without it mail is sent without logging in.");
  public static final ConfigKey KEEPER_ALERTS_SMTP_PASSWORD =
      new ConfigKey(
          "keeper.alerts.smtp.password",
          Kind.STRING,
          Optional.empty(),
          "floe serve: the SMTP password, best written as ${env:NAME}. Never printed.",
          List.of(),
          0,
          true);
  public static final ConfigKey KEEPER_ALERTS_SMTP_FROM =
      key(
          "keeper.alerts.smtp.from",
          Kind.STRING,
          null,
          "floe serve: the sender address of alert mail; required with keeper.alerts.smtp.host.");
  public static final ConfigKey KEEPER_ALERTS_SMTP_STARTTLS =
      new ConfigKey(
          "keeper.alerts.smtp.starttls",
          Kind.CHOICE,
          Optional.of("true"),
          "floe serve: whether the connection to the SMTP server is upgraded with STARTTLS"
              + " (required when true).",
          List.of("true", "false"),
          0,
          false);

  public static final ConfigKey KEEPER_VERIFICATIONS =
      key(
          "keeper.verifications",
          Kind.VERIFICATIONS,
          "none",
          "floe serve: verifications the keeper runs once a day, as floe verify does (its load"
              + " limits at their defaults), one at a time; each item has the keys below. E.g. - {"
              + " name: orders, source: mysql://floe@db:3306, table: shop.orders, target:"
              + " ods.orders, time-column: updated_at, window: 7d, at: \"00:30\", time-zone:"
              + " Asia/Shanghai }.");
  public static final ConfigKey VERIFICATION_NAME =
      key(
          "keeper.verifications[].name",
          Kind.STRING,
          null,
          "Required: the verification's name, as the API, the pages and the alerts show it; 1 to"
              + " 64 letters, digits, - and _, each different from the others ignoring case.");
  public static final ConfigKey VERIFICATION_SOURCE =
      key(
          "keeper.verifications[].source",
          Kind.STRING,
          "source.url",
          "The MySQL/MariaDB source, mysql://USER[:PASSWORD]@HOST[:PORT]; the password best as"
              + " the password key.");
  public static final ConfigKey VERIFICATION_PASSWORD =
      new ConfigKey(
          "keeper.verifications[].password",
          Kind.STRING,
          Optional.of("source.password"),
          "The source's password when its URL has none, best written as ${env:NAME}. Never"
              + " printed.",
          List.of(),
          0,
          true);
  public static final ConfigKey VERIFICATION_TABLE =
      key(
          "keeper.verifications[].table",
          Kind.STRING,
          null,
          "Required: the MySQL table, DATABASE.TABLE (floe verify --table).");
  public static final ConfigKey VERIFICATION_TARGET =
      key(
          "keeper.verifications[].target",
          Kind.STRING,
          "the same DATABASE.TABLE",
          "The lake table, NAMESPACE.TABLE (floe verify --target).");
  public static final ConfigKey VERIFICATION_TIME_COLUMN =
      key(
          "keeper.verifications[].time-column",
          Kind.STRING,
          null,
          "Required: the DATE/DATETIME/TIMESTAMP column set on every insert and update (floe"
              + " verify --time-column).");
  public static final ConfigKey VERIFICATION_WINDOW =
      key(
          "keeper.verifications[].window",
          Kind.STRING,
          "7d",
          "How far before the cutoff rows are compared in full: 7d, 36h, 90m (floe verify"
              + " --window).");
  public static final ConfigKey VERIFICATION_CUTOFF =
      key(
          "keeper.verifications[].cutoff",
          Kind.STRING,
          "today",
          "today, a date or an ISO date-time in the source's time zone; rows changed at or after"
              + " it are not compared (floe verify --cutoff).");
  public static final ConfigKey VERIFICATION_AT =
      key(
          "keeper.verifications[].at",
          Kind.STRING,
          "00:30",
          "The daily time the verification runs, HH:MM in time-zone (quote it: \"00:30\").");
  public static final ConfigKey VERIFICATION_TIME_ZONE =
      key(
          "keeper.verifications[].time-zone",
          Kind.STRING,
          "asked from the source",
          "The source's time zone, an IANA name such as Asia/Shanghai or an offset such as +08:00:"
              + " at is read in it. Unset, the keeper reads the source server's zone (@@time_zone).");

  /** The keys of one {@code keeper.verifications} item, in the order the reference lists them. */
  public static final List<ConfigKey> VERIFICATION_KEYS =
      List.of(
          VERIFICATION_NAME,
          VERIFICATION_SOURCE,
          VERIFICATION_PASSWORD,
          VERIFICATION_TABLE,
          VERIFICATION_TARGET,
          VERIFICATION_TIME_COLUMN,
          VERIFICATION_WINDOW,
          VERIFICATION_CUTOFF,
          VERIFICATION_AT,
          VERIFICATION_TIME_ZONE);

  public static final List<ConfigKey> KEYS =
      keys(
          DATA_DIR,
          CATALOG_TYPE,
          CATALOG_NAME,
          CATALOG_URI,
          CATALOG_WAREHOUSE,
          CATALOG_PROPERTIES,
          CATALOG_HADOOP,
          CATALOG_S3_ENDPOINT,
          CATALOG_S3_REGION,
          CATALOG_S3_PATH_STYLE_ACCESS,
          CATALOG_S3_ACCESS_KEY_ID,
          CATALOG_S3_SECRET_ACCESS_KEY,
          SOURCE_URL,
          SOURCE_PASSWORD,
          DOCTOR_MIN_BINLOG_RETENTION_HOURS,
          SYNC_TABLES,
          SYNC_EXCLUDE,
          SYNC_TARGET_NAMESPACE,
          SYNC_CHECKPOINT_INTERVAL_SECONDS,
          SYNC_HEARTBEAT_INTERVAL_SECONDS,
          SYNC_PARALLELISM,
          SYNC_CHUNK_ROWS,
          SYNC_SERVER_TIME_ZONE,
          SYNC_SNAPSHOT_ROWS_PER_SECOND,
          SYNC_PARTITIONS,
          SYNC_ROUTES,
          SYNC_FLINK,
          SYNC_STATE_DIR,
          SYNC_TOPICS,
          SYNC_FORMAT,
          SYNC_TARGET,
          SYNC_KEY,
          SYNC_KAFKA_SCHEMA,
          SYNC_STARTING_OFFSETS,
          SYNC_KAFKA_PROPERTIES,
          SYNC_DEAD_LETTER,
          SYNC_ON_BAD_MESSAGE,
          KEEPER_LISTEN,
          KEEPER_API_TOKEN,
          KEEPER_URL,
          KEEPER_REFRESH_INTERVAL_SECONDS,
          KEEPER_QUARANTINE_AFTER_FAILURES,
          KEEPER_TASK_TIMEOUT,
          KEEPER_HISTORY_RETENTION,
          KEEPER_INCLUDE,
          KEEPER_EXCLUDE,
          KEEPER_STORE_URL,
          KEEPER_STORE_USER,
          KEEPER_STORE_PASSWORD,
          KEEPER_OPTIMIZER_THREADS,
          KEEPER_OPTIMIZER_TABLE_SHARE,
          KEEPER_OPTIMIZER_LEASE_TIMEOUT,
          KEEPER_OPTIMIZER_GROUPS,
          KEEPER_OPTIMIZER_DEFAULT_GROUP,
          KEEPER_OPTIMIZER_CAPACITY_GRACE,
          KEEPER_MAINTENANCE_EXPIRE_INTERVAL,
          KEEPER_MAINTENANCE_METADATA_INTERVAL,
          KEEPER_MAINTENANCE_ORPHAN_INTERVAL,
          KEEPER_CATALOGS,
          KEEPER_ALERTS_RE_NOTIFY,
          KEEPER_ALERTS_LINK_BASE,
          ALERT_RULE_KEYS,
          KEEPER_ALERTS_CHANNELS,
          KEEPER_ALERTS_SMTP_HOST,
          KEEPER_ALERTS_SMTP_PORT,
          KEEPER_ALERTS_SMTP_USER,
          KEEPER_ALERTS_SMTP_PASSWORD,
          KEEPER_ALERTS_SMTP_FROM,
          KEEPER_ALERTS_SMTP_STARTTLS,
          KEEPER_VERIFICATIONS);

  private ConfigSchema() {}

  private static List<ConfigKey> keys(Object... keysAndLists) {
    List<ConfigKey> keys = new ArrayList<>();
    for (Object item : keysAndLists) {
      if (item instanceof ConfigKey key) {
        keys.add(key);
      } else {
        for (Object key : (List<?>) item) {
          keys.add((ConfigKey) key);
        }
      }
    }
    return List.copyOf(keys);
  }

  /** The path of a rule's key: {@code keeper.alerts.rules.RULE.KEY}. */
  public static String alertRulePath(AlertRule rule, String key) {
    return "keeper.alerts.rules." + rule.ruleName() + "." + key;
  }

  private static List<ConfigKey> alertRuleKeys() {
    List<ConfigKey> keys = new ArrayList<>();
    for (AlertRule rule : AlertRule.values()) {
      keys.add(
          new ConfigKey(
              alertRulePath(rule, "enabled"),
              Kind.CHOICE,
              Optional.of("true"),
              "floe serve: whether the "
                  + rule.ruleName()
                  + " alert rule (subject: "
                  + rule.subjectKind()
                  + ") is on; a table opts out of every rule with the table property"
                  + " floe.keeper.alert.enabled=false.",
              List.of("true", "false"),
              0,
              false));
      for (AlertThreshold threshold : rule.thresholds()) {
        boolean duration = threshold.type() == AlertThreshold.Type.DURATION;
        keys.add(
            new ConfigKey(
                alertRulePath(rule, threshold.key()),
                duration ? Kind.DURATION : Kind.INTEGER,
                Optional.of(threshold.defaultText()),
                "floe serve: "
                    + rule.ruleName()
                    + " "
                    + threshold.description()
                    + (threshold.maximum() == Long.MAX_VALUE || duration
                        ? ""
                        : " (at most " + threshold.maximum() + ")")
                    + "."
                    + (rule.ofTables()
                        ? " A table overrides it with the table property floe.keeper.alert."
                            + rule.ruleName()
                            + "."
                            + threshold.key()
                            + "."
                        : ""),
                List.of(),
                duration ? 0 : threshold.minimum(),
                false));
      }
    }
    return List.copyOf(keys);
  }

  /** The key at a dotted path. */
  public static Optional<ConfigKey> key(String path) {
    return KEYS.stream().filter(key -> key.path().equals(path)).findFirst();
  }

  /** Section paths ({@code catalog}, {@code source}, ...). */
  public static Set<String> sections() {
    Set<String> sections = new LinkedHashSet<>();
    for (ConfigKey key : KEYS) {
      // every enclosing section: keeper.alerts.rules holds no key of its own, only sections
      String section = key.section();
      while (!section.isEmpty()) {
        sections.add(section);
        int dot = section.lastIndexOf('.');
        section = dot < 0 ? "" : section.substring(0, dot);
      }
    }
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

  /**
   * The keys of one {@code keeper.catalogs} item by name: those of the {@code catalog} section,
   * then {@code include} and {@code exclude}, each typed as the key it copies.
   */
  public static Map<String, ConfigKey> catalogItemKeys() {
    Map<String, ConfigKey> keys = new LinkedHashMap<>();
    KEYS.stream()
        .filter(key -> key.section().equals("catalog"))
        .forEach(key -> keys.put(key.name(), key));
    keys.put("include", KEEPER_INCLUDE);
    keys.put("exclude", KEEPER_EXCLUDE);
    return Collections.unmodifiableMap(keys);
  }

  /** The keys of one {@code keeper.optimizer.groups} item by name ({@code kind}, ...). */
  public static Map<String, ConfigKey> groupItemKeys() {
    Map<String, ConfigKey> keys = new LinkedHashMap<>();
    GROUP_KEYS.forEach(key -> keys.put(key.name(), key));
    return Collections.unmodifiableMap(keys);
  }

  /** The keys of one {@code keeper.alerts.channels} item by name ({@code type}, ...). */
  public static Map<String, ConfigKey> channelItemKeys() {
    Map<String, ConfigKey> keys = new LinkedHashMap<>();
    CHANNEL_KEYS.forEach(key -> keys.put(key.name(), key));
    return Collections.unmodifiableMap(keys);
  }

  /** The keys of one {@code keeper.verifications} item by name ({@code table}, ...). */
  public static Map<String, ConfigKey> verificationItemKeys() {
    Map<String, ConfigKey> keys = new LinkedHashMap<>();
    VERIFICATION_KEYS.forEach(key -> keys.put(key.name(), key));
    return Collections.unmodifiableMap(keys);
  }

  /**
   * Every key the reference documents, in its order: {@link #KEYS}, with the keys of a {@code
   * keeper.optimizer.groups} item right after that key.
   */
  public static List<ConfigKey> referenceKeys() {
    List<ConfigKey> keys = new ArrayList<>();
    for (ConfigKey key : KEYS) {
      keys.add(key);
      if (key.kind() == Kind.GROUPS) {
        keys.addAll(GROUP_KEYS);
      }
      if (key.kind() == Kind.CHANNELS) {
        keys.addAll(CHANNEL_KEYS);
      }
      if (key.kind() == Kind.VERIFICATIONS) {
        keys.addAll(VERIFICATION_KEYS);
      }
    }
    return List.copyOf(keys);
  }

  private static ConfigKey duration(String path, Duration defaultValue, String description) {
    return key(path, Kind.DURATION, DurationText.format(defaultValue), description);
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
