package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.SourceTable;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.mysql.ServerTimeZone;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.ExecutionCheckpointingOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a sync: reads the selected tables' schemas from MySQL, creates the Iceberg tables, and
 * runs the Flink job on a local MiniCluster (or a {@link RemoteFlinkCluster}), resuming from the
 * newest checkpoint or savepoint of a sync with the same name.
 */
public final class SyncRunner {

  private static final Logger LOG = LoggerFactory.getLogger(SyncRunner.class);

  /** How messages name the setting of a sync's state directory. */
  static final String STATE_DIRECTORY_KEY = "sync.state-dir";

  /** Consecutive restarts of a failing job before it fails for good (about 4 minutes). */
  static final int RESTART_ATTEMPTS = 10;

  private final FloeCatalog catalog;
  private final MySqlConnections connections;
  private final Map<String, String> flinkSettings;
  private final Optional<RemoteFlinkCluster> cluster;

  public SyncRunner(FloeCatalog catalog, MySqlConnections connections) {
    this(catalog, connections, Map.of(), Optional.empty());
  }

  private SyncRunner(
      FloeCatalog catalog,
      MySqlConnections connections,
      Map<String, String> flinkSettings,
      Optional<RemoteFlinkCluster> cluster) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.connections = requireNonNull(connections, "connections is null");
    this.flinkSettings = Map.copyOf(requireNonNull(flinkSettings, "flinkSettings is null"));
    this.cluster = requireNonNull(cluster, "cluster is null");
  }

  /**
   * The same runner submitting the binlog job to a Flink cluster instead of a local MiniCluster;
   * the snapshot copy still runs in this process.
   */
  public SyncRunner onCluster(RemoteFlinkCluster cluster) {
    return new SyncRunner(
        catalog,
        connections,
        flinkSettings,
        Optional.of(requireNonNull(cluster, "cluster is null")));
  }

  /**
   * The same runner passing extra Flink configuration to the binlog job, e.g. a metrics reporter
   * ({@code metrics.reporter.prom.factory.class}); Floe's own settings win.
   */
  public SyncRunner withFlinkConfiguration(Map<String, String> settings) {
    return new SyncRunner(catalog, connections, settings, cluster);
  }

  /**
   * Prepares the tables and submits the job; returns once the job is submitted.
   *
   * @throws FloeException BAD_INPUT when no table matches or a table cannot be synced,
   *     SOURCE_UNAVAILABLE when MySQL cannot be read
   */
  public RunningSync start(SyncOptions options) {
    return watched(options, startRun(options));
  }

  /** The handle of a run that restarts itself to copy the tables renamed into the selection. */
  private RunningSync watched(SyncOptions options, SyncRun run) {
    return new RunningSync(
        run,
        Optional.of(
            new RenamedInTables(
                catalog.catalog(),
                connections,
                options,
                run.tables().keySet(),
                () -> startRun(options))));
  }

  /**
   * Prepares the tables and submits the job of one run. A sync restored from a checkpoint whose
   * Iceberg tables include tables renamed into the selection (marked {@link
   * dev.floe.core.sync.SyncProperties#COPY_NEEDED}) first copies those again, as {@code
   * --resnapshot} of them would.
   */
  private SyncRun startRun(SyncOptions options) {
    cluster.ifPresent(remote -> remote.requireNotRunning(jobName(options)));
    options.stateDirectory().requireReachable(STATE_DIRECTORY_KEY);
    List<SourceTable> tables;
    String timeZone;
    try (Connection connection = connections.open(options.source().withoutDatabase())) {
      tables = new SourceSchemaReader().read(connection, options.selection());
      timeZone = options.serverTimeZone().orElse(ServerTimeZone.read(connection).getId());
    } catch (SQLException e) {
      throw FloeException.sourceUnavailable(
          "Cannot read the table list of "
              + options.source().hostAndPort()
              + ": "
              + e.getMessage()
              + ".",
          e);
    }
    if (tables.isEmpty()) {
      throw FloeException.badInput(
          "No table of "
              + options.source().hostAndPort()
              + " matches --tables "
              + options.selection().includes()
              + (options.selection().excludes().isEmpty()
                  ? ""
                  : " and --exclude " + options.selection().excludes())
              + ". The patterns are regular expressions over database.table, e.g. 'shop\\..*'.");
    }
    StateDirectory stateDirectory = options.stateDirectory();
    Optional<Path> restorePoint = stateDirectory.latestRestorePoint();
    Optional<SnapshotState> saved = SnapshotState.load(stateDirectory);
    if (saved.isPresent() && restorePoint.isEmpty()) {
      requireDefinitionsUnchanged(saved.get(), tables, options.selection(), stateDirectory);
    }
    boolean resumingBinlog = saved.isPresent() && saved.get().end().isPresent();
    TableProvisioner.Provisioned provisioned =
        new TableProvisioner()
            .provisionTables(
                catalog.catalog(),
                tables,
                options.selection(),
                options.partitions(),
                resumingBinlog);
    Map<String, TableIdentifier> targets = provisioned.targets();
    if (restorePoint.isPresent()) {
      SnapshotState state =
          saved
              .filter(complete -> complete.end().isPresent())
              .orElseThrow(
                  () ->
                      FloeException.badInput(
                          "The sync state in "
                              + stateDirectory
                              + " has checkpoints but no completed "
                              + SnapshotState.FILE_NAME
                              + " (written by an older Floe, or edited). Remove that directory"
                              + " and the synced tables to start this sync over."));
      requireBinlogAvailable(
          options,
          checkpointedPosition(
              restorePoint.get(),
              state,
              "Nothing was changed. Move that directory aside to restore the checkpoint before it,"
                  + " or copy the tables again with --resnapshot."));
      List<String> recopies = state.pendingRecopies();
      if (recopies.isEmpty() && !provisioned.copyNeeded().isEmpty()) {
        // Tables renamed into the selection, created empty at the rename: their rows from before
        // it are copied the way --resnapshot of them copies them, before the job goes on.
        LOG.info(
            "sync {}: {} renamed into the selection; copying the rows {} had at the rename",
            options.name(),
            provisioned.copyNeeded(),
            provisioned.copyNeeded().size() == 1 ? "it" : "they");
        return recopy(options, state, provisioned.copyNeeded());
      }
      if (recopies.isEmpty()) {
        JobClient client =
            submit(options, timeZone, targets, restorePoint, state, state.end().get());
        return new SyncRun(client, targets, restorePoint, stateDirectory);
      }
      // --resnapshot of some tables: copy them, then restore the job, which skips their events
      // up to the copy's start and goes on for the other tables where it stopped.
      List<SnapshotCopier.TableCopy> copies =
          tables.stream()
              .filter(table -> recopies.contains(table.qualifiedName()))
              .map(table -> new SnapshotCopier.TableCopy(table, targets.get(table.qualifiedName())))
              .toList();
      LOG.info(
          "sync {} copies {} again, then resumes from {}",
          options.name(),
          recopies,
          StateDirectory.display(restorePoint.get()));
      return new SyncRun(
          copier(options, state),
          copies,
          () -> {
            SnapshotState complete = state.recopiesComplete(binlogHead(options));
            complete.save(stateDirectory);
            try (Connection connection = connections.open(options.source().withoutDatabase())) {
              requireUnchanged(
                  copies.stream().map(SnapshotCopier.TableCopy::source).toList(),
                  new SourceSchemaReader().read(connection, options.selection()));
            }
            return submit(options, timeZone, targets, restorePoint, complete, complete.end().get());
          },
          targets,
          stateDirectory,
          true);
    }
    SnapshotState state =
        saved.orElseGet(
            () -> {
              SnapshotState fresh = SnapshotState.begin(binlogHead(options), List.of(), tables);
              fresh.save(stateDirectory);
              return fresh;
            });
    SnapshotCopier copier = copier(options, state);
    // Once the end position is recorded every table was copied: never copy again (a copy after
    // it would read changes that the binlog phase applies as plain inserts).
    List<SnapshotCopier.TableCopy> copies =
        tables.stream()
            .filter(table -> state.end().isEmpty() && state.copies(table.qualifiedName()))
            .map(table -> new SnapshotCopier.TableCopy(table, targets.get(table.qualifiedName())))
            .toList();
    LOG.info(
        "sync {} copies {} tables, then reads the binlog from {}",
        options.name(),
        copies.size(),
        state.start());
    return new SyncRun(
        copier,
        copies,
        () -> {
          SnapshotState complete = state;
          if (state.end().isEmpty()) {
            complete = state.complete(binlogHead(options));
            complete.save(stateDirectory);
          }
          try (Connection connection = connections.open(options.source().withoutDatabase())) {
            SourceBinlog.requireAvailable(
                connection, complete.start(), options.source().hostAndPort(), options.name());
            if (!copies.isEmpty()) {
              requireUnchanged(
                  tables, new SourceSchemaReader().read(connection, options.selection()));
            }
          }
          return submit(
              options, timeZone, targets, Optional.empty(), complete, complete.end().get());
        },
        targets,
        stateDirectory,
        saved.isPresent());
  }

  /**
   * Refuses to start the binlog phase's CDC source from before the copy when a table was altered
   * since the copy began: with no checkpoint yet, the source decodes every row from the copy's
   * start position with the definition it reads now, which the rows logged before the change do not
   * have.
   */
  private static void requireDefinitionsUnchanged(
      SnapshotState state,
      List<SourceTable> now,
      dev.floe.core.sync.TableSelection selection,
      StateDirectory stateDirectory) {
    List<String> altered =
        state.alteredSinceBegin(
            now,
            name -> {
              int dot = name.indexOf('.');
              return selection.matches(name.substring(0, dot), name.substring(dot + 1));
            });
    if (altered.isEmpty()) {
      return;
    }
    throw FloeException.badInput(
        "MySQL table"
            + (altered.size() == 1 ? " " : "s ")
            + String.join(", ", altered)
            + (altered.size() == 1 ? " was" : " were")
            + " altered or dropped after this sync began copying (its binlog phase reads from "
            + state.start().text()
            + ", before the change), and the sync stopped before its binlog phase's first"
            + " checkpoint, so the rows logged before the change cannot be read with the new"
            + " definition. Nothing was changed in "
            + stateDirectory
            + " or the lake. Start the sync again with --resnapshot (it copies every table"
            + " again), and change table definitions once the binlog phase has committed.");
  }

  private SnapshotCopier copier(SyncOptions options, SnapshotState state) {
    return new SnapshotCopier(
        catalog.catalog(),
        connections,
        options.source(),
        state.syncId(),
        options.parallelism(),
        options.snapshotChunkRows(),
        options.checkpointInterval(),
        new RowThrottle(options.snapshotRowsPerSecond()));
  }

  /**
   * Refuses to read the binlog from before the copy when a copied table's definition changed since
   * the copy began: the CDC source decodes events with the table's current definition, which would
   * misread the rows logged before the change.
   */
  private static void requireUnchanged(List<SourceTable> copied, List<SourceTable> now) {
    for (SourceTable before : copied) {
      SourceTable after =
          now.stream()
              .filter(table -> table.qualifiedName().equals(before.qualifiedName()))
              .findFirst()
              .orElse(null);
      if (after == null || !after.equals(before)) {
        throw FloeException.badInput(
            "MySQL table "
                + before.qualifiedName()
                + (after == null ? " was dropped" : " was altered")
                + " while Floe copied it, so the binlog written before the change cannot be read"
                + " with its new definition. Start the sync again with --resnapshot (it copies"
                + " every table again), and change table definitions after the copy is complete.");
      }
    }
  }

  /**
   * Copies tables again; a table of a route is copied with every table of its route, since they
   * share one Iceberg table. When only some tables are named and the sync's checkpoint and its
   * binlog position are still readable, their Iceberg tables are dropped and copied again while the
   * other tables resume from the checkpoint (nothing lost). Otherwise (all tables, or the server's
   * binlog list confirms that the checkpoint's file was purged) the sync starts over: it forgets
   * its checkpoints and state, copies the given tables again (all when empty), replacing their
   * contents, and reads the binlog from now on; tables not copied again then keep their rows but
   * miss the changes made while the binlog was lost. MySQL is asked everything before anything is
   * dropped or deleted.
   *
   * @throws FloeException BAD_INPUT when a named table is not among the synced ones, or the
   *     checkpoint cannot be read; SOURCE_UNAVAILABLE when MySQL cannot be reached. Nothing was
   *     dropped or deleted in either case
   */
  public RunningSync resnapshot(SyncOptions options, List<String> named) {
    // before the state is forgotten: a job still running on a cluster would keep writing
    cluster.ifPresent(remote -> remote.requireNotRunning(jobName(options)));
    options.stateDirectory().requireReachable(STATE_DIRECTORY_KEY);
    SyncTargets targets = SyncTargets.of(options.selection());
    List<String> tables = new java.util.ArrayList<>();
    List<SourceTable> sources;
    try (Connection connection = connections.open(options.source().withoutDatabase())) {
      sources = new SourceSchemaReader().read(connection, options.selection());
      List<String> synced = sources.stream().map(SourceTable::qualifiedName).toList();
      for (String table : named) {
        if (!synced.contains(table)) {
          throw FloeException.badInput(
              "--resnapshot names "
                  + table
                  + ", which is not among the synced tables ("
                  + String.join(", ", synced)
                  + "). Name tables as database.table.");
        }
        // A route's tables share one Iceberg table: they are copied again together.
        TableIdentifier identifier = targets.identifier(table);
        List<String> sharing =
            targets.route(table).isPresent()
                ? synced.stream()
                    .filter(other -> targets.identifier(other).equals(identifier))
                    .toList()
                : List.of(table);
        if (sharing.size() > 1) {
          LOG.info(
              "--resnapshot {}: copying every table of its route into {} again: {}",
              table,
              identifier,
              sharing);
        }
        sharing.stream().filter(other -> !tables.contains(other)).forEach(tables::add);
      }
    } catch (SQLException e) {
      throw MySqlConnections.explain(options.source(), e).toException(e);
    }
    StateDirectory stateDirectory = options.stateDirectory();
    Optional<Path> restorePoint = stateDirectory.latestRestorePoint();
    Optional<SnapshotState> saved =
        SnapshotState.load(stateDirectory).filter(state -> state.end().isPresent());
    // Everything that reads MySQL or the checkpoint comes before anything is dropped or deleted:
    // a source that goes away, or a checkpoint that cannot be read, stops the command here with
    // the sync's state and tables as they were. Only the server's own binlog list saying that the
    // needed file is gone makes the sync start over.
    boolean partial = false;
    if (!tables.isEmpty() && restorePoint.isPresent() && saved.isPresent()) {
      BinlogPosition position =
          checkpointedPosition(
              restorePoint.get(),
              saved.get(),
              "--resnapshot cannot tell whether the other tables can go on from it, so nothing was"
                  + " dropped or deleted. Move that directory aside to use the checkpoint before"
                  + " it, or run --resnapshot without table names to copy every table again.");
      partial = binlogStillHas(options, position);
      if (!partial) {
        LOG.warn(
            "--resnapshot: {} no longer has binlog file {} that the sync {} must continue from:"
                + " it starts over; the tables not named keep their rows but miss the changes"
                + " made since {}",
            options.source().hostAndPort(),
            position.file(),
            options.name(),
            position.text());
      }
    }
    if (partial) {
      // The sync's position is still readable: copy only these tables again, and let the others
      // go on from their checkpoint, losing nothing.
      return watched(options, recopy(options, saved.get(), tables));
    }
    BinlogPosition head = binlogHead(options);
    // The copy replaces the rows of the tables it copies again; one whose columns MySQL no longer
    // maps to (altered while an earlier copy ran) cannot take them and is created anew.
    List<SourceTable> copied =
        sources.stream()
            .filter(table -> tables.isEmpty() || tables.contains(table.qualifiedName()))
            .toList();
    for (TableIdentifier outdated :
        new TableProvisioner().withOtherColumns(catalog.catalog(), copied, options.selection())) {
      catalog.catalog().dropTable(outdated, true);
      LOG.info(
          "--resnapshot: dropped {}, whose columns differ from its MySQL table's now, to copy it"
              + " again",
          outdated);
    }
    for (String part :
        List.of(
            "checkpoints",
            "savepoints",
            SnapshotState.FILE_NAME,
            SnapshotState.FILE_NAME + ".next")) {
      try {
        stateDirectory.delete(part);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove " + stateDirectory + "/" + part, e);
      }
    }
    SnapshotState.begin(head, tables, sources).save(stateDirectory);
    return start(options);
  }

  /**
   * Copies these tables again into new Iceberg tables (a stopped table may have a schema MySQL no
   * longer maps to) while the others go on from the sync's checkpoint: records the copy's window
   * from the binlog head on, then starts the run that copies them and restores the job, which skips
   * their events up to the window's start.
   */
  private SyncRun recopy(SyncOptions options, SnapshotState saved, List<String> tables) {
    // MySQL is asked before anything is dropped: unreachable, it stops the start with every table
    // as it was
    BinlogPosition head = binlogHead(options);
    SyncTargets targets = SyncTargets.of(options.selection());
    for (String table : tables) {
      TableIdentifier identifier = targets.identifier(table);
      if (catalog.catalog().tableExists(identifier)) {
        catalog.catalog().dropTable(identifier, true);
        LOG.info("{}: dropped {} to copy it again", table, identifier);
      }
    }
    saved.recopy(tables, head).save(options.stateDirectory());
    return startRun(options);
  }

  /**
   * Where the restored job's CDC source goes on reading: the binlog split's offset in the
   * checkpoint, or (when no reader held the split then) the start position the source is configured
   * with. It must be known: a plain start checks that its file still exists, and {@code
   * --resnapshot} decides by it whether the sync's state may be deleted.
   *
   * @param whatNow the end of the message: what happened and what to do
   * @throws FloeException BAD_INPUT naming the checkpoint when it cannot be read, or when its
   *     committer state is of a newer version than this Floe reads
   */
  private static BinlogPosition checkpointedPosition(
      Path restorePoint, SnapshotState state, String whatNow) {
    try {
      CheckpointedCommitterState.requireReadable(restorePoint);
      return CheckpointedBinlogPosition.read(restorePoint).orElse(state.start());
    } catch (IOException | RuntimeException unreadable) {
      throw FloeException.badInput(
          "Cannot read the sync's checkpoint "
              + StateDirectory.display(restorePoint)
              + " ("
              + unreadable.getMessage()
              + "). "
              + whatNow);
    }
  }

  /**
   * Whether the server still has the binlog file {@code position} is in, from its binlog list.
   *
   * @throws FloeException SOURCE_UNAVAILABLE when the server cannot be asked
   */
  private boolean binlogStillHas(SyncOptions options, BinlogPosition position) {
    try (Connection connection = connections.open(options.source().withoutDatabase())) {
      return SourceBinlog.files(connection).contains(position.file());
    } catch (SQLException e) {
      throw MySqlConnections.explain(options.source(), e).toException(e);
    }
  }

  /**
   * Fails before anything is submitted when the binlog file the job would continue from is purged.
   */
  private void requireBinlogAvailable(SyncOptions options, BinlogPosition position) {
    try (Connection connection = connections.open(options.source().withoutDatabase())) {
      SourceBinlog.requireAvailable(
          connection, position, options.source().hostAndPort(), options.name());
    } catch (SQLException e) {
      throw MySqlConnections.explain(options.source(), e).toException(e);
    }
  }

  private BinlogPosition binlogHead(SyncOptions options) {
    try (Connection connection = connections.open(options.source().withoutDatabase())) {
      return SourceBinlog.head(connection);
    } catch (SQLException e) {
      throw MySqlConnections.explain(options.source(), e).toException(e);
    }
  }

  private JobClient submit(
      SyncOptions options,
      String timeZone,
      Map<String, TableIdentifier> targets,
      Optional<Path> restorePoint,
      SnapshotState state,
      BinlogPosition overlapBound) {
    Configuration configuration =
        jobConfiguration(
            flinkSettings, options.stateDirectory(), options.checkpointInterval(), restorePoint);
    StreamExecutionEnvironment environment;
    if (cluster.isPresent()) {
      environment =
          cluster
              .get()
              .environment(
                  configuration,
                  JobJars.ofThisProcess(
                      jobJarsDirectory(options.stateDirectory(), options.name())));
      environment.setParallelism(options.parallelism());
    } else {
      environment =
          StreamExecutionEnvironment.createLocalEnvironment(options.parallelism(), configuration);
    }
    SyncJob.build(
        environment,
        options,
        timeZone,
        SyncTargets.of(options.selection()),
        targets.values().stream().map(TableIdentifier::toString).distinct().toList(),
        new CatalogLoader(catalog.name(), catalog.properties()),
        state,
        overlapBound);
    try {
      JobClient client = environment.executeAsync(jobName(options));
      LOG.info(
          "sync {} binlog phase started as Flink job {} on {} ({} tables, restored from {})",
          options.name(),
          client.getJobID(),
          cluster.map(Object::toString).orElse("a local MiniCluster"),
          targets.size(),
          restorePoint.map(StateDirectory::display));
      return client;
    } catch (Exception e) {
      throw FloeException.internal("Cannot start the Flink job: " + e.getMessage(), e);
    }
  }

  /**
   * The Flink configuration of a sync's job: checkpoints (retained, 3 kept) and savepoints in the
   * sync's state directory, the checkpoint interval, a bounded restart strategy, the restore point;
   * {@code flinkSettings} first, Floe's own settings win.
   */
  static Configuration jobConfiguration(
      Map<String, String> flinkSettings,
      StateDirectory stateDirectory,
      java.time.Duration checkpointInterval,
      Optional<Path> restorePoint) {
    Configuration configuration = new Configuration();
    flinkSettings.forEach(configuration::setString);
    configuration.set(
        CheckpointingOptions.CHECKPOINTS_DIRECTORY, stateDirectory.path("checkpoints").toString());
    configuration.set(
        CheckpointingOptions.SAVEPOINT_DIRECTORY, stateDirectory.path("savepoints").toString());
    configuration.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 3);
    configuration.set(ExecutionCheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
    configuration.set(
        ExecutionCheckpointingOptions.EXTERNALIZED_CHECKPOINT,
        org.apache.flink.streaming.api.environment.CheckpointConfig.ExternalizedCheckpointCleanup
            .RETAIN_ON_CANCELLATION);
    // Retry a failing job a bounded number of times (backing off from 1 s to 30 s), then fail
    // visibly: a sync that cannot make progress must say why instead of retrying silently.
    configuration.setString("restart-strategy.type", "exponential-delay");
    configuration.setString("restart-strategy.exponential-delay.initial-backoff", "1 s");
    configuration.setString("restart-strategy.exponential-delay.max-backoff", "30 s");
    configuration.setString(
        "restart-strategy.exponential-delay.attempts-before-reset-backoff",
        Integer.toString(RESTART_ATTEMPTS));
    restorePoint.ifPresent(
        path -> configuration.set(StateRecoveryOptions.SAVEPOINT_PATH, path.toString()));
    return configuration;
  }

  /** The binlog job's name; one sync runs one job of that name at a time. */
  static String jobName(SyncOptions options) {
    return "floe sync " + options.name();
  }

  /**
   * Where the jars packed from class directories of this process go (a development build; see
   * {@link JobJars}): beside the state when it is local, else in the temporary directory.
   */
  static java.nio.file.Path jobJarsDirectory(StateDirectory stateDirectory, String syncName) {
    return stateDirectory
        .localPath()
        .map(directory -> directory.resolve("job-jars"))
        .orElseGet(
            () ->
                java.nio.file.Path.of(
                    System.getProperty("java.io.tmpdir"), "floe-job-jars", syncName));
  }
}
