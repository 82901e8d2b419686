package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What the keeper remembers of one table. Immutable; the {@code with...} methods return changed
 * copies.
 *
 * @param key catalog and table
 * @param status the table's state
 * @param metadataLocation the metadata file last evaluated; empty before the first evaluation
 * @param health 0-100, from the last scan
 * @param dataFiles live data files at the last scan
 * @param smallFiles of them, small
 * @param deleteFiles live delete files at the last scan
 * @param backlogBytes bytes the planner would rewrite now
 * @param lastOptimizedAt when a run last committed something
 * @param consecutiveFailures failed runs (or scans) in a row
 * @param lastError the last failure, or why planning failed
 * @param retryAt when a table in backoff (or failed) is evaluated again
 * @param lastExpireAt when snapshot expiry last ran
 * @param lastMetadataCleanAt when metadata cleanup last ran
 * @param lastOrphanCleanAt when orphan cleanup last ran
 */
public record TableRecord(
    TableKey key,
    TableStatus status,
    Optional<String> metadataLocation,
    int health,
    long dataFiles,
    long smallFiles,
    long deleteFiles,
    long backlogBytes,
    Optional<Instant> lastOptimizedAt,
    int consecutiveFailures,
    Optional<String> lastError,
    Optional<Instant> retryAt,
    Optional<Instant> lastExpireAt,
    Optional<Instant> lastMetadataCleanAt,
    Optional<Instant> lastOrphanCleanAt) {

  public TableRecord {
    requireNonNull(key, "key is null");
    requireNonNull(status, "status is null");
    requireNonNull(metadataLocation, "metadataLocation is null");
    requireNonNull(lastOptimizedAt, "lastOptimizedAt is null");
    requireNonNull(lastError, "lastError is null");
    requireNonNull(retryAt, "retryAt is null");
    requireNonNull(lastExpireAt, "lastExpireAt is null");
    requireNonNull(lastMetadataCleanAt, "lastMetadataCleanAt is null");
    requireNonNull(lastOrphanCleanAt, "lastOrphanCleanAt is null");
  }

  /** A table just discovered: pending its first evaluation. */
  public static TableRecord discovered(TableKey key) {
    return new TableRecord(
        key,
        TableStatus.PENDING,
        Optional.empty(),
        100,
        0,
        0,
        0,
        0,
        Optional.empty(),
        0,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  public TableRecord withStatus(TableStatus next) {
    return changed(fields -> fields.status = next);
  }

  /** The figures of a fresh scan of {@code location}. */
  public TableRecord withScan(
      String location,
      int nextHealth,
      long nextDataFiles,
      long nextSmallFiles,
      long nextDeleteFiles,
      long nextBacklogBytes) {
    return changed(
        fields -> {
          fields.metadataLocation = Optional.of(location);
          fields.health = nextHealth;
          fields.dataFiles = nextDataFiles;
          fields.smallFiles = nextSmallFiles;
          fields.deleteFiles = nextDeleteFiles;
          fields.backlogBytes = nextBacklogBytes;
        });
  }

  /** The failure bookkeeping: count, last error, retry time. */
  public TableRecord withFailures(int count, Optional<String> error, Optional<Instant> retry) {
    return changed(
        fields -> {
          fields.consecutiveFailures = count;
          fields.lastError = error;
          fields.retryAt = retry;
        });
  }

  public TableRecord withLastOptimizedAt(Instant at) {
    return changed(fields -> fields.lastOptimizedAt = Optional.of(at));
  }

  /** The metadata location last looked at, without new figures (its evaluation failed). */
  public TableRecord withMetadataLocation(String location) {
    return changed(fields -> fields.metadataLocation = Optional.of(location));
  }

  /** Forgets the evaluated metadata location, so the next refresh evaluates the table again. */
  public TableRecord withoutMetadataLocation() {
    return changed(fields -> fields.metadataLocation = Optional.empty());
  }

  public TableRecord withMaintenance(
      Optional<Instant> expire, Optional<Instant> metadata, Optional<Instant> orphans) {
    return changed(
        fields -> {
          fields.lastExpireAt = expire;
          fields.lastMetadataCleanAt = metadata;
          fields.lastOrphanCleanAt = orphans;
        });
  }

  /** A copy with what {@code change} sets changed. */
  private TableRecord changed(Consumer<Fields> change) {
    Fields fields = new Fields(this);
    change.accept(fields);
    return fields.record();
  }

  /** A record's fields, to change some of them. */
  private static final class Fields {
    private final TableKey key;
    TableStatus status;
    Optional<String> metadataLocation;
    int health;
    long dataFiles;
    long smallFiles;
    long deleteFiles;
    long backlogBytes;
    Optional<Instant> lastOptimizedAt;
    int consecutiveFailures;
    Optional<String> lastError;
    Optional<Instant> retryAt;
    Optional<Instant> lastExpireAt;
    Optional<Instant> lastMetadataCleanAt;
    Optional<Instant> lastOrphanCleanAt;

    Fields(TableRecord record) {
      key = record.key;
      status = record.status;
      metadataLocation = record.metadataLocation;
      health = record.health;
      dataFiles = record.dataFiles;
      smallFiles = record.smallFiles;
      deleteFiles = record.deleteFiles;
      backlogBytes = record.backlogBytes;
      lastOptimizedAt = record.lastOptimizedAt;
      consecutiveFailures = record.consecutiveFailures;
      lastError = record.lastError;
      retryAt = record.retryAt;
      lastExpireAt = record.lastExpireAt;
      lastMetadataCleanAt = record.lastMetadataCleanAt;
      lastOrphanCleanAt = record.lastOrphanCleanAt;
    }

    TableRecord record() {
      return new TableRecord(
          key,
          status,
          metadataLocation,
          health,
          dataFiles,
          smallFiles,
          deleteFiles,
          backlogBytes,
          lastOptimizedAt,
          consecutiveFailures,
          lastError,
          retryAt,
          lastExpireAt,
          lastMetadataCleanAt,
          lastOrphanCleanAt);
    }
  }
}
