package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One unit of work and one commit: data files of one partition to rewrite (deletes applied, output
 * rolled at the target size) and large files whose deletes are converted to a position delete file.
 */
public record FileGroup(
    PartitionKey partition, List<CandidateFile> rewrite, List<CandidateFile> convert) {

  public FileGroup {
    requireNonNull(partition, "partition is null");
    rewrite = List.copyOf(requireNonNull(rewrite, "rewrite is null"));
    convert = List.copyOf(requireNonNull(convert, "convert is null"));
  }

  /** Bytes the group reads: rewritten files whole, converted files' key columns. */
  public long inputBytes() {
    return rewrite.stream().mapToLong(CandidateFile::sizeBytes).sum()
        + convert.stream().mapToLong(CandidateFile::keyColumnBytes).sum();
  }
}
