package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

/**
 * The health counters of one partition at one snapshot: data files by size class, delete files by
 * kind, and the smallest data sequence number of its data files. No per-file detail: a table with
 * 100k files is summarised in as many of these as it has partitions.
 *
 * @param smallFiles data files smaller than the small-file threshold
 * @param largeFiles the other data files
 * @param largeKeyColumnBytes bytes of the identifier (key) columns in the large files, from the
 *     files' column-size metrics: what converting their equality deletes to positions reads
 * @param minDataSequenceNumber the smallest data sequence number of the data files ({@code
 *     Long.MAX_VALUE} when there are none)
 */
public record PartitionState(
    PartitionKey partition,
    long smallFiles,
    long smallBytes,
    long largeFiles,
    long largeBytes,
    long dataRecords,
    long largeKeyColumnBytes,
    long positionDeleteFiles,
    long positionDeleteRecords,
    long positionDeleteBytes,
    long equalityDeleteFiles,
    long equalityDeleteRecords,
    long equalityDeleteBytes,
    long minDataSequenceNumber) {

  public PartitionState {
    requireNonNull(partition, "partition is null");
    for (long value :
        new long[] {
          smallFiles,
          smallBytes,
          largeFiles,
          largeBytes,
          dataRecords,
          largeKeyColumnBytes,
          positionDeleteFiles,
          positionDeleteRecords,
          positionDeleteBytes,
          equalityDeleteFiles,
          equalityDeleteRecords,
          equalityDeleteBytes
        }) {
      if (value < 0) {
        throw new IllegalArgumentException("counters must not be negative: " + partition);
      }
    }
  }

  public long dataFiles() {
    return smallFiles + largeFiles;
  }

  public long dataBytes() {
    return smallBytes + largeBytes;
  }

  public long deleteFiles() {
    return positionDeleteFiles + equalityDeleteFiles;
  }

  public long deleteRecords() {
    return positionDeleteRecords + equalityDeleteRecords;
  }

  /** Data bytes per data file; 0 without data files. */
  public long averageFileSize() {
    return dataFiles() == 0 ? 0 : dataBytes() / dataFiles();
  }

  /**
   * Deleted records over data records, at most 1: an upper estimate, since an equality delete may
   * match no row. 1 when there are deletes and no data records.
   */
  public double deleteRatio() {
    if (dataRecords == 0) {
      return deleteRecords() == 0 ? 0 : 1;
    }
    return Math.min(1.0, (double) deleteRecords() / dataRecords);
  }

  /**
   * How many of the data files are more than the bytes need at the target size: {@code 1 -
   * ceil(bytes / target) / files}; 0 without files.
   */
  public double fileExcess(long targetFileSize) {
    if (dataFiles() == 0) {
      return 0;
    }
    long ideal = Math.max(1, ceilDiv(dataBytes(), targetFileSize));
    return Math.max(0.0, 1.0 - (double) ideal / dataFiles());
  }

  /** Delete files per data file, at most 1 (1 when there are delete files and no data files). */
  public double deleteFileLoad() {
    if (dataFiles() == 0) {
      return deleteFiles() == 0 ? 0 : 1;
    }
    return Math.min(1.0, (double) deleteFiles() / dataFiles());
  }

  /**
   * The health score, 0 (worst) to 100: {@code round(100 x (1 - 0.4 x fileExcess - 0.4 x
   * deleteRatio - 0.2 x deleteFileLoad))}; see docs/optimize.md.
   */
  public int healthScore(long targetFileSize) {
    return score(fileExcess(targetFileSize), deleteRatio(), deleteFileLoad());
  }

  /** The health score of the three measures (see {@link #healthScore(long)}). */
  static int score(double fileExcess, double deleteRatio, double deleteFileLoad) {
    double score = 100 * (1 - 0.4 * fileExcess - 0.4 * deleteRatio - 0.2 * deleteFileLoad);
    return (int) Math.max(0, Math.min(100, Math.round(score)));
  }

  /** The fewest files this partition's bytes fit in at the target size; 0 without files. */
  long idealFiles(long targetFileSize) {
    return dataFiles() == 0 ? 0 : Math.max(1, ceilDiv(dataBytes(), targetFileSize));
  }

  /** These counters plus the other's, under this partition key. */
  PartitionState plus(PartitionState other) {
    return new PartitionState(
        partition,
        smallFiles + other.smallFiles,
        smallBytes + other.smallBytes,
        largeFiles + other.largeFiles,
        largeBytes + other.largeBytes,
        dataRecords + other.dataRecords,
        largeKeyColumnBytes + other.largeKeyColumnBytes,
        positionDeleteFiles + other.positionDeleteFiles,
        positionDeleteRecords + other.positionDeleteRecords,
        positionDeleteBytes + other.positionDeleteBytes,
        equalityDeleteFiles + other.equalityDeleteFiles,
        equalityDeleteRecords + other.equalityDeleteRecords,
        equalityDeleteBytes + other.equalityDeleteBytes,
        Math.min(minDataSequenceNumber, other.minDataSequenceNumber));
  }

  static long ceilDiv(long value, long divisor) {
    return (value + divisor - 1) / divisor;
  }

  public static Builder builder(PartitionKey partition, long smallFileThreshold) {
    return new Builder(partition, smallFileThreshold);
  }

  /** Accumulates one partition's counters file by file (used by scanners; not thread-safe). */
  public static final class Builder {
    private final PartitionKey partition;
    private final long smallFileThreshold;
    private long smallFiles;
    private long smallBytes;
    private long largeFiles;
    private long largeBytes;
    private long dataRecords;
    private long largeKeyColumnBytes;
    private long positionDeleteFiles;
    private long positionDeleteRecords;
    private long positionDeleteBytes;
    private long equalityDeleteFiles;
    private long equalityDeleteRecords;
    private long equalityDeleteBytes;
    private long minDataSequenceNumber = Long.MAX_VALUE;

    private Builder(PartitionKey partition, long smallFileThreshold) {
      this.partition = requireNonNull(partition, "partition is null");
      this.smallFileThreshold = smallFileThreshold;
    }

    /** Counts one live data file. */
    public Builder addDataFile(
        long sizeBytes, long records, long dataSequenceNumber, long keyColumnBytes) {
      if (sizeBytes < smallFileThreshold) {
        smallFiles++;
        smallBytes += sizeBytes;
      } else {
        largeFiles++;
        largeBytes += sizeBytes;
        largeKeyColumnBytes += keyColumnBytes;
      }
      dataRecords += records;
      minDataSequenceNumber = Math.min(minDataSequenceNumber, dataSequenceNumber);
      return this;
    }

    /** Counts one live position delete file. */
    public Builder addPositionDeleteFile(long sizeBytes, long records) {
      positionDeleteFiles++;
      positionDeleteRecords += records;
      positionDeleteBytes += sizeBytes;
      return this;
    }

    /** Counts one live equality delete file. */
    public Builder addEqualityDeleteFile(long sizeBytes, long records) {
      equalityDeleteFiles++;
      equalityDeleteRecords += records;
      equalityDeleteBytes += sizeBytes;
      return this;
    }

    public PartitionState build() {
      return new PartitionState(
          partition,
          smallFiles,
          smallBytes,
          largeFiles,
          largeBytes,
          dataRecords,
          largeKeyColumnBytes,
          positionDeleteFiles,
          positionDeleteRecords,
          positionDeleteBytes,
          equalityDeleteFiles,
          equalityDeleteRecords,
          equalityDeleteBytes,
          minDataSequenceNumber);
    }
  }
}
