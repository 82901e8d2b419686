package dev.floe.cli;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.source.SourceReport;
import dev.floe.core.source.SourceRequirements;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.mysql.SourceDoctor;
import dev.floe.mysql.SourceFactsReader;
import dev.floe.sync.FlinkClusterAddress;
import dev.floe.sync.KafkaFormat;
import dev.floe.sync.KafkaSyncOptions;
import dev.floe.sync.KafkaSyncProgress;
import dev.floe.sync.KafkaSyncRunner;
import dev.floe.sync.KeeperReporter;
import dev.floe.sync.ProgressPrinter;
import dev.floe.sync.ProgressView;
import dev.floe.sync.RemoteFlinkCluster;
import dev.floe.sync.RunningSync;
import dev.floe.sync.StateDirectory;
import dev.floe.sync.SyncOptions;
import dev.floe.sync.SyncProgress;
import dev.floe.sync.SyncRunner;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code floe sync}: whole MySQL databases, or the CDC topics of a Kafka cluster ({@code --source
 * kafka://...}), into Iceberg, continuously, exactly once.
 */
@Command(
    name = "sync",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Sync MySQL/MariaDB tables into Iceberg: an initial snapshot (chunked, parallel, no locks),"
          + " then the binlog, continuously. Each table becomes a format-v2 Iceberg table whose"
          + " identifier fields are the primary key; changes are committed exactly once at every"
          + " checkpoint. Runs until Ctrl-C, which stops with a savepoint; run it again with the"
          + " same --name to resume (also after a crash).",
      "The source must pass floe doctor's checks first.",
      "With --source kafka://HOST:PORT[,HOST:PORT...] it reads the topics --topics matches"
          + " instead, in --format canal-json, debezium-json or maxwell-json: each source"
          + " db.table lands in the Iceberg table the MySQL sync would name, upserted by its"
          + " primary key, its schema following the messages; every commit records the Kafka"
          + " offsets it covers (floe.kafka.offset.<topic>.<partition>), so a restart, even"
          + " without checkpoints, goes on with nothing lost or doubled."
    })
final class SyncCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Option(
      names = "--source",
      paramLabel = "URL",
      description =
          "mysql://USER[:PASSWORD]@HOST[:PORT], or kafka://HOST:PORT[,HOST:PORT...] for Kafka"
              + " topics (default: source.url).")
  String source;

  @Option(
      names = "--topics",
      paramLabel = "REGEX",
      description =
          "Kafka: the topics to read, a regular expression over whole topic names; a matching"
              + " topic created later is read too (default: sync.topics).")
  String topics;

  @Option(
      names = "--format",
      paramLabel = "canal-json|debezium-json|maxwell-json|json",
      description =
          "Kafka: how the messages are written; json: plain JSON objects into --target"
              + " (default: sync.format).")
  String format;

  @Option(
      names = "--target",
      paramLabel = "NS.TABLE",
      description =
          "Kafka --format json: the Iceberg table every message is a row of (default:"
              + " sync.target).")
  String target;

  @Option(
      names = "--key",
      paramLabel = "COL[,COL]",
      split = ",",
      description =
          "Kafka --format json: the columns rows are upserted by; without it rows are appended"
              + " (default: sync.key).")
  List<String> key;

  @Option(
      names = "--schema",
      paramLabel = "'COL TYPE [NOT NULL], ...'",
      description =
          "Kafka --format json: the columns of --target, e.g. 'id BIGINT NOT NULL, ts TIMESTAMP,"
              + " name STRING, amount DECIMAL(10,2)'; types BOOLEAN, INT, BIGINT, FLOAT, DOUBLE,"
              + " DECIMAL(P,S), STRING, DATE, TIME, TIMESTAMP (without zone), TIMESTAMPTZ. A"
              + " missing table is created from it (--key columns NOT NULL, --partition"
              + " 'day(ts)'), so text values land as these types; an existing table must have"
              + " these columns and types, or the sync refuses to start and changes nothing."
              + " New fields of later messages still become optional columns (default:"
              + " sync.kafka.schema, else the existing table's columns or inferred ones).")
  String schema;

  @Option(
      names = "--starting-offsets",
      paramLabel = "earliest|latest|timestamp:EPOCH_MS",
      description =
          "Kafka: where a partition no synced table holds offsets of is read from on a first"
              + " start (default: sync.starting-offsets, else earliest). A restart goes on from"
              + " the checkpoint or the tables' own offsets.")
  String startingOffsets;

  @Option(
      names = "--kafka-property",
      paramLabel = "KEY=VALUE",
      description =
          "Kafka: a client property, e.g. security.protocol=SASL_SSL, sasl.jaas.config=...;"
              + " repeatable, added to sync.kafka.properties. Values of secret-named keys are"
              + " never printed.")
  Map<String, String> kafkaProperties;

  @Option(
      names = "--dead-letter",
      paramLabel = "NS.TABLE",
      description =
          "Kafka: the Iceberg table a message that cannot be applied goes to, with its topic,"
              + " partition, offset, timestamp, raw key and value and the reason (default:"
              + " sync.dead-letter, else floe_rejected.messages).")
  String deadLetter;

  @Option(
      names = "--on-bad-message",
      paramLabel = "dead-letter|fail",
      description =
          "Kafka: what a message that cannot be applied does: dead-letter (kept there, the sync"
              + " goes on) or fail (the sync stops naming its topic, partition, offset and"
              + " reason) (default: sync.on-bad-message, else dead-letter).")
  String onBadMessage;

  @Option(
      names = "--tables",
      paramLabel = "REGEX",
      description =
          "Tables to sync: a regular expression over database.table, e.g. 'shop\\..*'."
              + " Repeatable (default: sync.tables).")
  List<String> tables;

  @Option(
      names = "--exclude",
      paramLabel = "REGEX",
      description =
          "Tables to leave out (regular expression over database.table). Repeatable (default:"
              + " sync.exclude).")
  List<String> excludes;

  @Option(
      names = "--target-namespace",
      paramLabel = "NAMESPACE",
      description =
          "Iceberg namespace for every table (default: sync.target-namespace, else the MySQL"
              + " database name).")
  String targetNamespace;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description =
          "Names this sync and its state under <data-dir>/sync/NAME (default: mysql-HOST-PORT).")
  String name;

  @Option(
      names = "--checkpoint-interval",
      paramLabel = "SECONDS",
      description =
          "Seconds between commits to Iceberg (default: sync.checkpoint-interval-seconds, 10).")
  Integer checkpointIntervalSeconds;

  @Option(
      names = "--heartbeat-interval",
      paramLabel = "SECONDS",
      description =
          "Seconds between binlog heartbeats while no change arrives, which keep an idle sync's"
              + " position and lag current (default: sync.heartbeat-interval-seconds, "
              + SyncSettings.DEFAULT_HEARTBEAT_INTERVAL_SECONDS
              + ").")
  Integer heartbeatIntervalSeconds;

  @Option(
      names = "--parallelism",
      paramLabel = "N",
      description = "Snapshot readers and writers (default: sync.parallelism, 2).")
  Integer parallelism;

  @Option(
      names = "--chunk-rows",
      paramLabel = "N",
      description =
          "Rows per snapshot chunk, read one at a time without locks (default: sync.chunk-rows, "
              + SyncSettings.DEFAULT_CHUNK_ROWS
              + ").")
  Integer chunkRows;

  @Option(
      names = "--snapshot-rows-per-second",
      paramLabel = "N",
      description =
          "Cap on the rows per second the initial snapshot reads from MySQL, to spare a busy"
              + " source; 0 = no cap (default: sync.snapshot-rows-per-second, else 0).")
  Long snapshotRowsPerSecond;

  @Option(
      names = "--partition",
      paramLabel = "DB.TABLE=SPEC",
      description =
          "Partitioning of a table sync creates, e.g. shop.orders='day(created_at), bucket(16,"
              + " id)'; repeatable (default: sync.partitions). Kafka --format json: a bare SPEC,"
              + " e.g. --partition 'day(ts)', is --target's (with --schema, checked against it"
              + " before the table is created).")
  List<String> partitions;

  @Option(
      names = "--route",
      paramLabel = "'REGEX -> NS.TABLE'",
      description =
          "Merge every synced table whose database.table matches REGEX into one Iceberg table,"
              + " e.g. --route 'order_db_\\d+\\.orders_\\d+ -> ods.orders'; rows keep their"
              + " source in _source_db and _source_table, part of the identifier fields;"
              + " repeatable, the first match wins (default: sync.routes).")
  List<String> routes;

  @Option(
      names = "--resnapshot",
      arity = "0..*",
      paramLabel = "DB.TABLE",
      description =
          "Copy tables again. Named tables (a routed table brings its whole route), while the"
              + " sync's binlog position is still readable: they are copied into new Iceberg"
              + " tables and the other tables resume where they stopped. None named, or the"
              + " position purged: the sync starts over, forgets its checkpoints, copies the"
              + " named tables (all when none is named) again and reads the binlog from now.")
  List<String> resnapshot;

  @Option(
      names = "--flink",
      paramLabel = "HOST:PORT",
      description =
          "Run the binlog job on the Flink cluster whose JobManager's REST endpoint (rest.port) is"
              + " here, instead of a local Flink; the snapshot copy stays in this process. The"
              + " cluster must reach MySQL, the catalog and warehouse, and <data-dir>/sync/NAME at"
              + " the same path (default: sync.flink, else local).")
  String flink;

  @Option(
      names = "--flink-conf",
      paramLabel = "KEY=VALUE",
      description =
          "Extra Flink configuration for the binlog job, e.g. a metrics reporter:"
              + " metrics.reporter.prom.factory.class=org.apache.flink.metrics.prometheus"
              + ".PrometheusReporterFactory; repeatable.")
  Map<String, String> flinkConfiguration;

  @Option(
      names = "--server-time-zone",
      paramLabel = "ZONE",
      description =
          "The source's time zone for TIMESTAMP columns (default: sync.server-time-zone, else"
              + " asked from the server).")
  String serverTimeZone;

  @Option(
      names = "--keeper",
      paramLabel = "URL",
      description =
          "Report the sync's status (per table: phase, rows, lag; the sync: running, stopped or"
              + " failed) every 5 s to the keeper (floe serve) at this http(s) URL, e.g."
              + " http://127.0.0.1:8420, with keeper.api-token (or FLOE_KEEPER_TOKEN) when set."
              + " A keeper that is down never stops the sync (default: keeper.url, else none).")
  String keeper;

  @Option(
      names = "--progress-interval",
      paramLabel = "SECONDS",
      defaultValue = "10",
      description = "Seconds between progress reports (default: ${DEFAULT-VALUE}; 0 = none).")
  int progressIntervalSeconds;

  @Option(
      names = "--progress",
      paramLabel = "auto|live|log",
      defaultValue = "auto",
      description =
          "How progress is shown: live (one block redrawn in place: totals, then the tables"
              + " copying, lagging or stopped, the others in one line), log (a line per table"
              + " whose state changed, and a summary line per report), or auto: live on an"
              + " interactive terminal, else log (default: ${DEFAULT-VALUE}).")
  String progressMode;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = floe.spec.commandLine().getOut();
    FloeSettings settings = floe.settings();
    SyncSettings defaults = settings.sync();
    int checkpointIntervalSeconds =
        this.checkpointIntervalSeconds != null
            ? this.checkpointIntervalSeconds
            : (int) defaults.checkpointInterval().toSeconds();
    int heartbeatIntervalSeconds =
        this.heartbeatIntervalSeconds != null
            ? this.heartbeatIntervalSeconds
            : (int) defaults.heartbeatInterval().toSeconds();
    int parallelism = this.parallelism != null ? this.parallelism : defaults.parallelism();
    int chunkRows = this.chunkRows != null ? this.chunkRows : defaults.chunkRows();
    long rowsPerSecond =
        this.snapshotRowsPerSecond != null
            ? this.snapshotRowsPerSecond
            : defaults.snapshotRowsPerSecond();
    List<String> tables = this.tables != null ? this.tables : defaults.tables();
    List<String> excludes = this.excludes != null ? this.excludes : defaults.exclude();
    Optional<String> targetNamespace =
        Optional.ofNullable(this.targetNamespace).or(defaults::targetNamespace);
    Optional<String> serverTimeZone =
        Optional.ofNullable(this.serverTimeZone).or(defaults::serverTimeZone);
    if (heartbeatIntervalSeconds < 1) {
      throw FloeException.badInput(
          "--heartbeat-interval must be at least 1 second, got "
              + heartbeatIntervalSeconds
              + ". Give it in whole seconds, e.g. --heartbeat-interval "
              + SyncSettings.DEFAULT_HEARTBEAT_INTERVAL_SECONDS
              + ".");
    }
    if (checkpointIntervalSeconds < 1
        || parallelism < 1
        || chunkRows < 1
        || progressIntervalSeconds < 0
        || rowsPerSecond < 0) {
      throw FloeException.badInput(
          "--checkpoint-interval, --parallelism and --chunk-rows must be at least 1 and"
              + " --progress-interval and --snapshot-rows-per-second at least 0; got "
              + checkpointIntervalSeconds
              + ", "
              + parallelism
              + ", "
              + chunkRows
              + ", "
              + progressIntervalSeconds
              + " and "
              + rowsPerSecond
              + ".");
    }
    Optional<RemoteFlinkCluster> cluster =
        Optional.ofNullable(this.flink)
            .or(defaults::flink)
            .map(
                value -> {
                  String option = this.flink != null ? "--flink" : "sync.flink";
                  return RemoteFlinkCluster.connect(
                      FlinkClusterAddress.parse(value, option), option, Duration.ofSeconds(10));
                });
    Optional<java.net.URI> keeperUrl =
        Optional.ofNullable(this.keeper)
            .map(url -> KeeperReporter.keeperUrl(url, "--keeper"))
            .or(
                () ->
                    settings
                        .keeper()
                        .url()
                        .map(url -> KeeperReporter.keeperUrl(url, "keeper.url")));
    ProgressView.Mode progressView =
        ProgressView.Mode.choose(
            progressMode,
            System.console() != null && !"dumb".equals(floe.environment().get("TERM")));
    Optional<String> kafkaUrl =
        Optional.ofNullable(source)
            .or(settings::sourceUrl)
            .filter(url -> url.regionMatches(true, 0, "kafka://", 0, 8));
    if (kafkaUrl.isPresent()) {
      return syncKafka(
          out,
          settings,
          kafkaUrl.get(),
          tables.isEmpty() ? List.of(".*") : tables,
          excludes,
          targetNamespace,
          checkpointIntervalSeconds,
          parallelism,
          serverTimeZone,
          cluster);
    }
    List<String> kafkaOnly = new ArrayList<>();
    for (Object[] flag :
        new Object[][] {
          {"--topics", topics},
          {"--format", format},
          {"--target", target},
          {"--key", key},
          {"--schema", schema},
          {"--starting-offsets", startingOffsets},
          {"--kafka-property", kafkaProperties},
          {"--dead-letter", deadLetter},
          {"--on-bad-message", onBadMessage}
        }) {
      if (flag[1] != null) {
        kafkaOnly.add((String) flag[0]);
      }
    }
    if (!kafkaOnly.isEmpty()) {
      throw FloeException.badInput(
          String.join(", ", kafkaOnly)
              + (kafkaOnly.size() == 1 ? " is" : " are")
              + " for a Kafka source (--source kafka://HOST:PORT[,HOST:PORT...]), not a MySQL"
              + " one.");
    }
    Map<String, String> partitions = partitions(defaults, Optional.empty());
    MySqlSourceAddress address =
        SourceAddresses.resolve(Optional.ofNullable(source), settings, floe.environment())
            .withoutDatabase();
    TableSelection selection =
        TableSelection.of(tables, excludes, targetNamespace)
            .withRoutes(
                this.routes != null ? "--route" : "sync.routes",
                this.routes != null ? this.routes : defaults.routes());

    MySqlConnections connections = new MySqlConnections(Duration.ofSeconds(10));
    SourceReport report =
        new SourceDoctor(
                connections,
                new SourceFactsReader(),
                new SourceRequirements(settings.minimumBinlogRetention()))
            .check(address);
    if (!report.passed()) {
      SourceReportPrinter.print(report, out);
      out.println("floe sync needs every required check to pass; nothing was synced.");
      return ExitCodes.PROBLEM_FOUND;
    }
    String syncName =
        name != null
            ? name
            : ("mysql-" + address.host() + "-" + address.port()).replaceAll("[^A-Za-z0-9._-]", "_");
    if (!syncName.matches("[A-Za-z0-9._-]+")) {
      throw FloeException.badInput(
          "--name '" + syncName + "' may only hold letters, digits, '.', '_' and '-'.");
    }
    SyncOptions options =
        new SyncOptions(
            syncName,
            address,
            selection,
            Duration.ofSeconds(checkpointIntervalSeconds),
            parallelism,
            stateDirectory(settings, syncName),
            serverTimeZone,
            chunkRows,
            rowsPerSecond,
            partitions,
            Duration.ofSeconds(heartbeatIntervalSeconds));
    FloeCatalog catalog = floe.context().catalog();
    SyncRunner runner =
        new SyncRunner(catalog, connections)
            .withFlinkConfiguration(flinkConfiguration == null ? Map.of() : flinkConfiguration);
    if (cluster.isPresent()) {
      runner = runner.onCluster(cluster.get());
    }
    if (resnapshot != null) {
      out.println(
          "Starting sync "
              + syncName
              + " over: copying "
              + (resnapshot.isEmpty() ? "every table" : String.join(", ", resnapshot))
              + " again.");
    }
    RunningSync sync =
        resnapshot != null ? runner.resnapshot(options, resnapshot) : runner.start(options);
    out.println(
        "Syncing "
            + sync.tables().size()
            + " tables from "
            + address
            + sync.resumedFrom().map(from -> " (resumed from " + from + ")").orElse("")
            + ":");
    sync.tables()
        .forEach((from, to) -> out.println("  " + from + " -> " + catalog.name() + "." + to));
    cluster.ifPresent(
        remote ->
            out.println(
                "The binlog job runs on the Flink cluster at "
                    + remote.address()
                    + " (Flink "
                    + remote.flinkVersion()
                    + ")."));
    out.println(
        "Committing every " + checkpointIntervalSeconds + " s. Ctrl-C stops with a savepoint.");
    out.flush();
    SyncProgress tracker =
        new SyncProgress(catalog, sync, connections, address, java.time.Clock.systemUTC());
    Optional<KeeperReporter> reporter =
        keeperUrl.map(
            url ->
                new KeeperReporter(
                    url,
                    keeperToken(settings),
                    syncName,
                    "mysql://" + address.user() + "@" + address.hostAndPort(),
                    tracker,
                    java.time.Clock.systemUTC()));
    reporter.ifPresent(
        started -> {
          started.start();
          out.println("Reporting to the keeper at " + keeperUrl.get() + " every 5 s.");
        });
    Thread stopper =
        new Thread(
            () -> {
              try {
                String resumePoint = sync.stop(Duration.ofSeconds(120));
                reporter.ifPresent(
                    last -> last.finish(KeeperReporter.State.STOPPED, Optional.empty()));
                out.println("Stopped. Run the same command to resume from " + resumePoint + ".");
              } catch (Exception e) {
                // On a signal the JVM's other shutdown hooks (Flink's own) may end the local job
                // while it stops; the savepoint, if written, still holds what is uncommitted.
                out.println(
                    "Stopped. The next run with the same --name resumes from the newest savepoint or"
                        + " checkpoint and commits whatever is pending ("
                        + rootMessage(e)
                        + ").");
              }
              out.flush();
            },
            "floe-sync-stop");
    Runtime.getRuntime().addShutdownHook(stopper);
    ProgressPrinter printer =
        new ProgressPrinter(
            tracker,
            new ProgressView(
                progressView,
                ProgressView.laggingThreshold(
                    Duration.ofSeconds(checkpointIntervalSeconds),
                    Duration.ofSeconds(heartbeatIntervalSeconds)),
                ProgressView.terminalWidth(floe.environment())),
            out);
    ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor();
    if (progressIntervalSeconds > 0) {
      progress.scheduleAtFixedRate(
          printer::print, progressIntervalSeconds, progressIntervalSeconds, TimeUnit.SECONDS);
    }
    try {
      sync.await();
      reporter.ifPresent(last -> last.finish(KeeperReporter.State.STOPPED, Optional.empty()));
      return ExitCodes.OK;
    } catch (ExecutionException failed) {
      reporter.ifPresent(
          last -> last.finish(KeeperReporter.State.FAILED, Optional.of(rootMessage(failed))));
      throw FloeException.internal("The sync job failed: " + rootMessage(failed), failed);
    } catch (RuntimeException failed) {
      reporter.ifPresent(
          last -> last.finish(KeeperReporter.State.FAILED, Optional.of(rootMessage(failed))));
      throw failed;
    } finally {
      progress.shutdownNow();
      try {
        Runtime.getRuntime().removeShutdownHook(stopper);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it stops the job
      }
    }
  }

  /**
   * The partitioning of tables the sync creates: {@code --partition DB.TABLE=SPEC} entries, where a
   * bare {@code SPEC} is the plain JSON target's, else {@code sync.partitions}.
   *
   * @param bareTarget the table a bare SPEC is for (Kafka {@code --format json}); empty: none is
   *     allowed
   * @throws FloeException BAD_INPUT for a bare SPEC without such a table
   */
  private Map<String, String> partitions(SyncSettings defaults, Optional<String> bareTarget) {
    if (partitions == null) {
      return defaults.partitions();
    }
    Map<String, String> specs = new java.util.LinkedHashMap<>();
    for (String entry : partitions) {
      int equals = entry.indexOf('=');
      boolean named = equals > 0 && entry.substring(0, equals).indexOf('(') < 0;
      if (named) {
        specs.put(entry.substring(0, equals).trim(), entry.substring(equals + 1));
      } else if (bareTarget.isPresent()) {
        specs.put(bareTarget.get(), entry);
      } else {
        throw FloeException.badInput(
            "--partition '"
                + entry
                + "' names no table: write DB.TABLE=SPEC, e.g. --partition"
                + " shop.orders='day(created_at)'. A bare SPEC is for a Kafka --format json"
                + " sync, whose table is --target.");
      }
    }
    return specs;
  }

  /** {@code floe sync --source kafka://...}: the Kafka flags, then the job until it ends. */
  private Integer syncKafka(
      PrintWriter out,
      FloeSettings settings,
      String url,
      List<String> tables,
      List<String> excludes,
      Optional<String> targetNamespace,
      int checkpointIntervalSeconds,
      int parallelism,
      Optional<String> serverTimeZone,
      Optional<RemoteFlinkCluster> cluster)
      throws Exception {
    dev.floe.core.config.KafkaSyncSettings defaults = settings.sync().kafka();
    String inputName = source != null ? "--source" : "source.url";
    List<String> mysqlOnly = new ArrayList<>();
    if (resnapshot != null) {
      mysqlOnly.add("--resnapshot");
    }
    if (chunkRows != null) {
      mysqlOnly.add("--chunk-rows");
    }
    if (snapshotRowsPerSecond != null) {
      mysqlOnly.add("--snapshot-rows-per-second");
    }
    if (heartbeatIntervalSeconds != null) {
      mysqlOnly.add("--heartbeat-interval");
    }
    if (keeper != null) {
      mysqlOnly.add("--keeper");
    }
    if (!mysqlOnly.isEmpty()) {
      throw FloeException.badInput(
          String.join(", ", mysqlOnly)
              + (mysqlOnly.size() == 1 ? " is" : " are")
              + " for a MySQL source; a Kafka sync ("
              + inputName
              + " "
              + url
              + ") has no snapshot, binlog or keeper report yet. Leave "
              + (mysqlOnly.size() == 1 ? "it" : "them")
              + " out.");
    }
    String bootstrap = KafkaSyncOptions.bootstrapServers(url, inputName);
    String topicPattern =
        Optional.ofNullable(topics)
            .or(defaults::topics)
            .orElseThrow(
                () ->
                    FloeException.badInput(
                        "A Kafka sync needs the topics to read: pass --topics with a regular"
                            + " expression over topic names, e.g. --topics 'shop\\..*', or set"
                            + " sync.topics in floe.yaml."));
    KafkaSyncOptions.topicPattern(topicPattern, topics != null ? "--topics" : "sync.topics");
    KafkaFormat messageFormat =
        KafkaFormat.parse(
            Optional.ofNullable(format)
                .or(defaults::format)
                .orElseThrow(
                    () ->
                        FloeException.badInput(
                            "A Kafka sync needs the messages' format: pass --format canal-json,"
                                + " debezium-json, maxwell-json or json, or set sync.format in"
                                + " floe.yaml.")));
    KafkaSyncOptions.StartingOffsets starting =
        KafkaSyncOptions.StartingOffsets.parse(
            Optional.ofNullable(startingOffsets).or(defaults::startingOffsets).orElse("earliest"),
            startingOffsets != null ? "--starting-offsets" : "sync.starting-offsets");
    Map<String, String> properties = new java.util.TreeMap<>(defaults.properties());
    if (kafkaProperties != null) {
      properties.putAll(kafkaProperties);
    }
    String deadLetterName =
        Optional.ofNullable(deadLetter)
            .or(defaults::deadLetter)
            .orElse(KafkaSyncOptions.DEFAULT_DEAD_LETTER.toString());
    if (!deadLetterName.matches("[^.\\s]+(\\.[^.\\s]+)+")) {
      throw FloeException.badInput(
          (deadLetter != null ? "--dead-letter " : "sync.dead-letter ")
              + deadLetterName
              + " is not NAMESPACE.TABLE, e.g. floe_rejected.messages.");
    }
    KafkaSyncOptions.OnBadMessage badMessages =
        KafkaSyncOptions.OnBadMessage.parse(
            Optional.ofNullable(onBadMessage).or(defaults::onBadMessage).orElse("dead-letter"),
            onBadMessage != null ? "--on-bad-message" : "sync.on-bad-message");
    java.time.ZoneId zone;
    try {
      zone = java.time.ZoneId.of(serverTimeZone.orElse("UTC"));
    } catch (java.time.DateTimeException wrong) {
      throw FloeException.badInput(
          "--server-time-zone "
              + serverTimeZone.orElse("")
              + " is not a time zone: use a region (Asia/Shanghai) or an offset (+08:00).");
    }
    String syncName =
        name != null
            ? name
            : ("kafka-" + bootstrap.split(",")[0].replace(':', '-'))
                .replaceAll("[^A-Za-z0-9._-]", "_");
    if (!syncName.matches("[A-Za-z0-9._-]+")) {
      throw FloeException.badInput(
          "--name '" + syncName + "' may only hold letters, digits, '.', '_' and '-'.");
    }
    TableSelection selection =
        TableSelection.of(tables, excludes, targetNamespace)
            .withRoutes(
                this.routes != null ? "--route" : "sync.routes",
                this.routes != null ? this.routes : settings.sync().routes());
    Optional<String> jsonTarget =
        messageFormat == KafkaFormat.JSON
            ? Optional.ofNullable(target).or(defaults::target)
            : Optional.empty();
    List<String> rowKey = key != null ? key : defaults.key();
    String schemaInput = schema != null ? "--schema" : "sync.kafka.schema";
    Optional<org.apache.iceberg.Schema> declared =
        Optional.ofNullable(schema)
            .or(defaults::schema)
            .map(text -> dev.floe.core.sync.DeclaredSchema.parse(schemaInput, text, rowKey));
    KafkaSyncOptions options =
        new KafkaSyncOptions(
            syncName,
            bootstrap,
            topicPattern,
            messageFormat,
            selection,
            Duration.ofSeconds(checkpointIntervalSeconds),
            parallelism,
            stateDirectory(settings, syncName),
            starting,
            properties,
            partitions(settings.sync(), jsonTarget),
            zone,
            org.apache.iceberg.catalog.TableIdentifier.parse(deadLetterName),
            badMessages,
            Optional.ofNullable(target).or(defaults::target),
            rowKey,
            declared);
    FloeCatalog catalog = floe.context().catalog();
    KafkaSyncRunner runner =
        new KafkaSyncRunner(catalog)
            .withFlinkConfiguration(flinkConfiguration == null ? Map.of() : flinkConfiguration);
    if (cluster.isPresent()) {
      runner = runner.onCluster(cluster.get());
    }
    RunningSync sync = runner.start(options);
    out.println(
        "Syncing Kafka topics '"
            + topicPattern
            + "' ("
            + messageFormat.option()
            + ") from "
            + bootstrap
            + sync.resumedFrom()
                .map(from -> " (resumed from " + from + ")")
                .orElse(" (offsets from the tables, else " + starting + ")")
            + " as sync "
            + syncName
            + ".");
    if (!properties.isEmpty()) {
      out.println("Kafka client properties: " + KafkaSyncOptions.masked(properties));
    }
    if (settings.keeper().url().isPresent()) {
      out.println(
          "floe: keeper.url is set, but a Kafka sync does not report to the keeper yet; its"
              + " tables are found by the keeper like any other.");
    }
    out.println(
        (options.target().isPresent()
                ? "Every message is a row of "
                    + catalog.name()
                    + "."
                    + options.target().get()
                    + (options.key().isEmpty()
                        ? " (appended)"
                        : " (upserted by " + String.join(", ", options.key()) + ")")
                : "Each source db.table lands in "
                    + catalog.name()
                    + "."
                    + targetNamespace.orElse("<db>")
                    + ".<table>"
                    + (selection.routes().isEmpty() ? "" : " or its route's table"))
            + "; rejected messages in "
            + catalog.name()
            + "."
            + deadLetterName
            + (badMessages == KafkaSyncOptions.OnBadMessage.FAIL
                ? " (--on-bad-message fail: the sync stops at the first)"
                : "")
            + ".");
    if (declared.isPresent()) {
      out.println(
          "Columns of "
              + options.target().orElseThrow()
              + " as "
              + schemaInput
              + " declares them (new fields become optional columns), partitioned by "
              + (options.targetPartitioning().isUnpartitioned()
                  ? "nothing"
                  : partitions(settings.sync(), jsonTarget).get(options.target().get()).trim())
              + " when the sync creates it.");
    }
    out.println(
        "Committing every " + checkpointIntervalSeconds + " s. Ctrl-C stops with a savepoint.");
    out.flush();
    Thread stopper =
        new Thread(
            () -> {
              try {
                String resumePoint = sync.stop(Duration.ofSeconds(120));
                out.println("Stopped. Run the same command to resume from " + resumePoint + ".");
              } catch (Exception e) {
                out.println(
                    "Stopped. The next run with the same --name resumes from the newest savepoint or"
                        + " checkpoint, else from the tables' own offsets ("
                        + rootMessage(e)
                        + ").");
              }
              out.flush();
            },
            "floe-sync-stop");
    Runtime.getRuntime().addShutdownHook(stopper);
    KafkaSyncProgress tracker =
        new KafkaSyncProgress(catalog.catalog(), options, java.time.Clock.systemUTC());
    ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor();
    if (progressIntervalSeconds > 0) {
      progress.scheduleAtFixedRate(
          () -> {
            try {
              out.println(tracker.status().line());
              out.flush();
            } catch (RuntimeException unreadable) {
              org.slf4j.LoggerFactory.getLogger(SyncCommand.class)
                  .warn("cannot report progress: {}", unreadable.getMessage());
            }
          },
          progressIntervalSeconds,
          progressIntervalSeconds,
          TimeUnit.SECONDS);
    }
    try {
      sync.await();
      return ExitCodes.OK;
    } catch (ExecutionException failed) {
      throw FloeException.internal("The sync job failed: " + rootMessage(failed), failed);
    } finally {
      progress.shutdownNow();
      tracker.close();
      try {
        Runtime.getRuntime().removeShutdownHook(stopper);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it stops the job
      }
    }
  }

  /** The keeper's token: keeper.api-token, else the environment's FLOE_KEEPER_TOKEN. */
  private Optional<dev.floe.core.Secret> keeperToken(FloeSettings settings) {
    return settings
        .keeper()
        .apiToken()
        .or(
            () ->
                Optional.ofNullable(floe.environment().get(OptimizerCommand.TOKEN_VARIABLE))
                    .map(dev.floe.core.Secret::of));
  }

  private static String rootMessage(Throwable error) {
    Throwable cause = error;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getMessage();
  }

  /**
   * The sync's state directory: {@code sync.state-dir} (else {@code <data-dir>/sync}), then the
   * sync's name. A state directory on HDFS is reached with the catalog's Hadoop settings.
   *
   * @throws FloeException BAD_INPUT when sync.state-dir is not a usable location
   */
  private static StateDirectory stateDirectory(FloeSettings settings, String syncName) {
    StateDirectory root =
        settings
            .sync()
            .stateDirectory()
            .map(location -> StateDirectory.of(location, "sync.state-dir"))
            .orElseGet(() -> StateDirectory.local(settings.dataDirectory().resolve("sync")));
    StateDirectory.useHadoopSettings(settings.catalog().properties());
    return root.resolve(syncName);
  }
}
