package dev.floe.server.store;

import dev.floe.core.state.TableKey;
import dev.floe.core.state.TableStateStore;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the keeper remembers across restarts: every known table's record, the runs, events and
 * health samples (kept for {@code keeper.history-retention}), each table's partition failures and
 * its last history observation. Implementations are thread-safe; every method blocks on the
 * database and throws {@link dev.floe.core.error.FloeException} (SOURCE_UNAVAILABLE) when it cannot
 * be reached.
 */
public interface KeeperStore extends TableStateStore, AutoCloseable {

  /** Every table the keeper knows. */
  List<TableRecord> tables();

  /** Inserts or replaces a table's record. */
  void saveTable(TableRecord table);

  /** Inserts or replaces several tables' records, in one transaction. */
  void saveTables(List<TableRecord> tables);

  /**
   * Forgets a dropped table's record, failures, history observation and health samples; its runs
   * stay.
   */
  void forgetTable(TableKey key);

  void recordRun(RunRecord run);

  /** The table's newest runs, newest first. */
  List<RunRecord> runs(TableKey key, int limit);

  void recordEvent(KeeperEvent event);

  /** The newest events, newest first; of one table when {@code table} is given. */
  List<KeeperEvent> events(Optional<TableKey> table, int limit);

  /** Inserts or replaces the table's health sample of {@code bucket}. */
  void saveHealthSample(HealthSample sample, long bucket);

  /** The table's health samples taken at or after {@code since}, oldest first. */
  List<HealthSample> healthSamples(TableKey key, Instant since);

  /** Every table's newest health sample. */
  List<HealthSample> latestHealthSamples();

  /** Inserts or replaces the latest report of a sync job. */
  void saveSyncReport(SyncReportRow report);

  /** The latest report of every sync job that has reported, by name. */
  List<SyncReportRow> syncReports();

  /**
   * When the keeper first saw the scheduled verification {@code name}: the stored time, else {@code
   * now}, which is stored.
   */
  Instant verificationKnownSince(String name, Instant now);

  /**
   * Records a verification's run.
   *
   * @return the run with its id
   */
  VerificationRun recordVerificationRun(VerificationRun run);

  /** The verification's newest runs, newest first. */
  List<VerificationRun> verificationRuns(String name, int limit);

  /**
   * Deletes runs (of tables and of verifications), events and health samples older than {@code
   * before}.
   */
  void prune(Instant before);

  /** The alerts, their deliveries and silences, in the same database. */
  AlertStore alerts();

  /** Where the store is, for messages: never holds a password. */
  String description();

  @Override
  void close();
}
