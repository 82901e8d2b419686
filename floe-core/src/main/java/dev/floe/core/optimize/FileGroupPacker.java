package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Turns a planned task and its partition's files into file groups: selects the files the task's
 * kind covers, oldest data first, within the task's byte limit, and bin-packs them
 * (first-fit-decreasing) into groups of at most {@code max-group-bytes}. Pure and deterministic:
 * the same files give the same groups. Thread-safe (stateless).
 */
public final class FileGroupPacker {

  private static final Comparator<CandidateFile> OLDEST_FIRST =
      Comparator.comparingLong(CandidateFile::dataSequenceNumber)
          .thenComparing(CandidateFile::path);

  public List<FileGroup> pack(
      PartitionTask task, List<CandidateFile> files, OptimizePolicy policy) {
    requireNonNull(task, "task is null");
    requireNonNull(files, "files is null");
    requireNonNull(policy, "policy is null");
    long smallThreshold = policy.smallFileThreshold();
    List<CandidateFile> rewrite = new ArrayList<>();
    List<CandidateFile> convert = new ArrayList<>();
    long used = 0;
    for (CandidateFile file : files.stream().sorted(OLDEST_FIRST).toList()) {
      boolean small = file.sizeBytes() < smallThreshold;
      boolean largeWithDeletes = !small && file.hasDeletes();
      boolean toRewrite =
          switch (task.kind()) {
            case MINOR -> small;
            case DELETES -> small || (largeWithDeletes && !task.convertsLargeFiles());
            case FULL -> true;
          };
      boolean toConvert =
          task.kind() == TaskKind.DELETES && largeWithDeletes && task.convertsLargeFiles();
      if (!toRewrite && !toConvert) {
        continue;
      }
      long cost = toRewrite ? file.sizeBytes() : file.keyColumnBytes();
      if (used + cost > task.inputByteLimit()) {
        break;
      }
      used += cost;
      (toRewrite ? rewrite : convert).add(file);
    }
    // Rewriting one file that has no deletes changes nothing.
    if (rewrite.size() == 1 && !rewrite.get(0).hasDeletes()) {
      rewrite.clear();
    }
    List<FileGroup> groups = new ArrayList<>();
    for (List<CandidateFile> bin : firstFitDecreasing(rewrite, policy.maxGroupBytes(), true)) {
      if (bin.size() == 1 && !bin.get(0).hasDeletes()) {
        continue;
      }
      groups.add(new FileGroup(task.partition(), bin, List.of()));
    }
    for (List<CandidateFile> bin : firstFitDecreasing(convert, policy.maxGroupBytes(), false)) {
      groups.add(new FileGroup(task.partition(), List.of(), bin));
    }
    return groups;
  }

  private static List<List<CandidateFile>> firstFitDecreasing(
      List<CandidateFile> files, long maxGroupBytes, boolean wholeFiles) {
    List<List<CandidateFile>> bins = new ArrayList<>();
    List<Long> binBytes = new ArrayList<>();
    List<CandidateFile> largestFirst =
        files.stream()
            .sorted(
                Comparator.comparingLong(
                        (CandidateFile file) ->
                            wholeFiles ? file.sizeBytes() : file.keyColumnBytes())
                    .reversed()
                    .thenComparing(CandidateFile::path))
            .toList();
    for (CandidateFile file : largestFirst) {
      long size = wholeFiles ? file.sizeBytes() : file.keyColumnBytes();
      int fit = -1;
      for (int i = 0; i < bins.size(); i++) {
        if (binBytes.get(i) + size <= maxGroupBytes) {
          fit = i;
          break;
        }
      }
      if (fit < 0) {
        bins.add(new ArrayList<>());
        binBytes.add(0L);
        fit = bins.size() - 1;
      }
      bins.get(fit).add(file);
      binBytes.set(fit, binBytes.get(fit) + size);
    }
    for (List<CandidateFile> bin : bins) {
      bin.sort(OLDEST_FIRST);
    }
    return bins;
  }
}
