package dev.floe.core.sync;

/**
 * The keys Floe's sync writes into the summary of every Iceberg snapshot it commits. Verification
 * reads the source position and watermark; the keeper's expiry keeps each job's latest commit.
 */
public final class SyncSummary {

  /** A UUID that stays the same for one sync across restarts (its Flink job ids change). */
  public static final String SYNC_ID = "floe.sync-id";

  /** The Flink checkpoint this commit completes; increases within one sync id. */
  public static final String CHECKPOINT_ID = "floe.checkpoint-id";

  /**
   * Which of a checkpoint's commits to this table this is, from 0: a checkpoint that carries a
   * schema change commits the rows before it and the rows after it separately, in that order.
   */
  public static final String CHECKPOINT_PART = "floe.checkpoint-part";

  /** The MySQL binlog file the sync had read up to at that checkpoint. */
  public static final String BINLOG_FILE = "floe.binlog-file";

  /** The position in {@link #BINLOG_FILE}. */
  public static final String BINLOG_POSITION = "floe.binlog-position";

  /**
   * Kafka sync: {@code floe.kafka.offset.<topic>.<partition>} is the next offset of that partition
   * the table is complete up to: every message of the partition below it is in this snapshot.
   */
  public static final String KAFKA_OFFSET_PREFIX = "floe.kafka.offset.";

  /** Kafka sync: the topics whose offsets this snapshot records, sorted, comma-separated. */
  public static final String KAFKA_TOPICS = "floe.kafka.topics";

  /**
   * The MySQL commit time (epoch milliseconds) up to which the table is complete: every change
   * committed in MySQL at or before it is in this snapshot.
   */
  public static final String SOURCE_WATERMARK_MS = "floe.source-watermark-ms";

  /**
   * Initial snapshot in progress: the primary key (a JSON list of the key values as text) up to
   * which the table has been copied; the next run continues after it.
   */
  public static final String SNAPSHOT_AFTER_KEY = "floe.snapshot-after-key";

  /** {@code true} on the commit that completes a table's initial snapshot. */
  public static final String SNAPSHOT_COMPLETE = "floe.snapshot-complete";

  /** Flink's own keys, written too so Flink and Iceberg tools recognise the commits. */
  public static final String FLINK_JOB_ID = "flink.job-id";

  public static final String FLINK_MAX_COMMITTED_CHECKPOINT_ID =
      "flink.max-committed-checkpoint-id";

  private SyncSummary() {}
}
