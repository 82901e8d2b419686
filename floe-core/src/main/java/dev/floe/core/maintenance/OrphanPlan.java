package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What orphan (or metadata) cleanup would delete, and what it keeps and why.
 *
 * @param orphans unreferenced files older than the threshold: deleted, unless there are conflicts
 * @param tooYoung unreferenced files younger than the threshold, or whose age the listing did not
 *     report: kept (a writer may still commit them)
 * @param conflicts listed files whose path the metadata references under another scheme or
 *     authority: while there is one, nothing is deleted
 * @param referencedCount listed files the metadata references
 * @param minAge the age threshold used
 * @param cutoff files modified before this instant were old enough
 */
public record OrphanPlan(
    List<ListedFile> orphans,
    List<ListedFile> tooYoung,
    List<PathConflict> conflicts,
    int referencedCount,
    Duration minAge,
    Instant cutoff) {

  public OrphanPlan {
    orphans = List.copyOf(requireNonNull(orphans, "orphans is null"));
    tooYoung = List.copyOf(requireNonNull(tooYoung, "tooYoung is null"));
    conflicts = List.copyOf(requireNonNull(conflicts, "conflicts is null"));
    requireNonNull(minAge, "minAge is null");
    requireNonNull(cutoff, "cutoff is null");
  }

  /** The files to delete: the orphans, or none while any path conflict is unresolved. */
  public List<ListedFile> deletable() {
    return conflicts.isEmpty() ? orphans : List.of();
  }

  public long deletableBytes() {
    return deletable().stream().mapToLong(ListedFile::sizeBytes).sum();
  }
}
