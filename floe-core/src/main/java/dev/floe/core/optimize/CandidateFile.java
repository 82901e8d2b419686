package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

/**
 * One data file of a planned partition, as the executor lists it at the planned snapshot.
 *
 * @param keyColumnBytes bytes of the identifier columns (what an equality-to-position conversion
 *     reads); the file size when the file has no column-size metrics
 * @param hasDeletes whether any delete file applies to it
 */
public record CandidateFile(
    String path, long sizeBytes, long dataSequenceNumber, long keyColumnBytes, boolean hasDeletes) {
  public CandidateFile {
    requireNonNull(path, "path is null");
  }
}
