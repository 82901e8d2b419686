package dev.floe.iceberg.maintenance;

import static dev.floe.iceberg.maintenance.LakeTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.iceberg.FloeCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interleaves streaming commits, compaction, deletes, branches and tags, a writer holding
 * uncommitted files, abandoned files, snapshot expiry, orphan removal and metadata cleanup on a
 * real partitioned table, and checks after every step that every file any retained snapshot
 * references exists and that main, every tag and every branch read exactly the expected rows.
 *
 * <p>Before each cleanup every file under the table location except the pending writer's is made to
 * look ten days old, so only reachability, never age, protects live files.
 */
class MaintenanceSafetyTest {

  @TempDir Path dataDirectory;

  @Test
  void randomInterleavingKeepsEveryReferencedFile() {
    run(20261129L, 14);
  }

  @Test
  @Tag("slow")
  void longRandomInterleavingsKeepEveryReferencedFile() {
    for (long seed = 1; seed <= 5; seed++) {
      run(seed, 200);
    }
  }

  private void run(long seed, int steps) {
    Path directory = dataDirectory.resolve("seed-" + seed);
    try (FloeCatalog catalog = LakeTables.open(directory)) {
      List<String> history =
          new Scenario(new Random(seed), LakeTables.create(catalog, "shop.orders", true))
              .run(seed, steps);
      // The deck guarantees every kind of step; a compaction needs two files in a partition.
      assertThat(history).as("seed " + seed).contains("compact", "expire", "orphans", "metadata");
    }
  }

  private static final class Scenario {
    private final Random random;
    private final Table table;
    private final TreeMap<Long, String> main = new TreeMap<>();
    private final Map<String, List<String>> refs = new HashMap<>();
    private final Map<String, TreeMap<Long, String>> branches = new HashMap<>();
    private final List<DataFile> pending = new ArrayList<>();
    private final List<Record> pendingRows = new ArrayList<>();
    private final Set<String> abandoned = new HashSet<>();
    private final Instant now = Instant.now();
    private long nextId = 1;
    private int tags;

    Scenario(Random random, Table table) {
      this.random = random;
      this.table = table;
    }

    List<String> run(long seed, int steps) {
      // A shuffled deck with every kind of step first, so even a short run covers them all, then
      // random steps.
      List<String> deck =
          new ArrayList<>(
              List.of(
                  "append",
                  "append",
                  "append",
                  "append",
                  "uncommitted",
                  "abandon",
                  "tag",
                  "compact",
                  "delete",
                  "expire",
                  "orphans",
                  "metadata",
                  "uncommitted",
                  "append"));
      java.util.Collections.shuffle(deck, random);
      List<String> history = new ArrayList<>();
      for (int step = 0; step < steps; step++) {
        String action = step < deck.size() ? step(deck.get(step)) : step();
        history.add(action);
        check("seed " + seed + ", step " + step + " (" + String.join(", ", history) + ")");
      }
      return history;
    }

    private String step(String kind) {
      return switch (kind) {
        case "append" -> append();
        case "uncommitted" -> writeUncommittedOrCommitIt();
        case "abandon" -> abandon();
        case "tag" -> tagOrBranch();
        case "compact" -> compact();
        case "delete" -> deletePartition();
        case "expire" -> expire();
        case "orphans" -> orphans();
        default -> metadata();
      };
    }

    private String step() {
      int choice = random.nextInt(100);
      if (choice < 30) {
        return append();
      } else if (choice < 40) {
        return compact();
      } else if (choice < 45) {
        return deletePartition();
      } else if (choice < 52) {
        return writeUncommittedOrCommitIt();
      } else if (choice < 56) {
        return abandon();
      } else if (choice < 61) {
        return tagOrBranch();
      } else if (choice < 75) {
        return expire();
      } else if (choice < 90) {
        return orphans();
      } else {
        return metadata();
      }
    }

    private List<Record> newRows(int day) {
      List<Record> rows = new ArrayList<>();
      int count = 1 + random.nextInt(3);
      for (int i = 0; i < count; i++) {
        rows.add(row(nextId++, "v" + random.nextInt(1000), day));
      }
      return rows;
    }

    private static void record(TreeMap<Long, String> model, List<Record> rows) {
      for (Record row : rows) {
        model.put((Long) row.getField("id"), row.getField("name") + ":" + row.getField("day"));
      }
    }

    private String append() {
      List<Record> rows = newRows(1 + random.nextInt(3));
      if (!branches.isEmpty() && random.nextInt(4) == 0) {
        String branch = branches.keySet().iterator().next();
        table.newAppend().appendFile(LakeTables.write(table, rows)).toBranch(branch).commit();
        record(branches.get(branch), rows);
        return "append to " + branch;
      }
      LakeTables.append(table, rows);
      record(main, rows);
      return "append";
    }

    /** Rewrites the data files of one partition into one file (RewriteFiles). */
    private String compact() {
      table.refresh();
      if (table.currentSnapshot() == null) {
        return "compact (empty)";
      }
      long base = table.currentSnapshot().snapshotId();
      Map<Integer, List<DataFile>> byDay = new HashMap<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        tasks.forEach(
            task ->
                byDay
                    .computeIfAbsent(
                        task.file().partition().get(0, Integer.class), d -> new ArrayList<>())
                    .add(task.file()));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      // The partition with the most files.
      int day =
          byDay.entrySet().stream()
              .max(java.util.Comparator.comparingInt(entry -> entry.getValue().size()))
              .map(Map.Entry::getKey)
              .orElse(1);
      List<DataFile> files = byDay.getOrDefault(day, List.of());
      if (files.size() < 2) {
        return "compact (nothing)";
      }
      List<Record> rows = new ArrayList<>();
      for (Map.Entry<Long, String> entry : main.entrySet()) {
        String[] nameAndDay = entry.getValue().split(":");
        if (Integer.parseInt(nameAndDay[1]) == day) {
          rows.add(row(entry.getKey(), nameAndDay[0], day));
        }
      }
      RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(base);
      files.forEach(rewrite::deleteFile);
      rewrite.addFile(LakeTables.write(table, rows));
      rewrite.commit();
      return "compact";
    }

    private String deletePartition() {
      int day = 1 + random.nextInt(3);
      table.newDelete().deleteFromRowFilter(Expressions.equal("day", day)).commit();
      main.values().removeIf(value -> value.endsWith(":" + day));
      return "delete day " + day;
    }

    /** A writer writes files, and commits them some steps later (they stay young meanwhile). */
    private String writeUncommittedOrCommitIt() {
      if (!pending.isEmpty() && random.nextBoolean()) {
        var append = table.newAppend();
        pending.forEach(append::appendFile);
        append.commit();
        record(main, pendingRows);
        pending.clear();
        pendingRows.clear();
        return "commit pending";
      }
      List<Record> rows = newRows(1 + random.nextInt(3));
      pending.add(LakeTables.write(table, rows));
      pendingRows.addAll(rows);
      return "write uncommitted";
    }

    private String abandon() {
      abandoned.add(LakeTables.write(table, newRows(1)).location());
      return "abandon";
    }

    private String tagOrBranch() {
      table.refresh();
      if (table.currentSnapshot() == null) {
        return "tag (empty)";
      }
      if (branches.isEmpty() && random.nextBoolean()) {
        table.manageSnapshots().createBranch("audit").commit();
        branches.put("audit", new TreeMap<>(main));
        return "branch";
      }
      String tag = "t" + tags++;
      table.manageSnapshots().createTag(tag, table.currentSnapshot().snapshotId()).commit();
      refs.put(tag, expected(main));
      return "tag " + tag;
    }

    private String expire() {
      MaintenancePolicy policy =
          MaintenancePolicy.defaults().withMinSnapshots(1 + random.nextInt(3));
      new SnapshotExpirer()
          .previewAndCommit("shop.orders", table, policy, now.plus(Duration.ofDays(2)));
      return "expire";
    }

    private String orphans() {
      ageEverythingButPending();
      MaintenanceOutcome outcome =
          new OrphanFileCleaner()
              .previewAndCommit("shop.orders", table, MaintenancePolicy.defaults(), now);
      assertThat(outcome.preview().blockers()).isEmpty();
      assertThat(outcome.failedDeletes()).isEmpty();
      for (String location : abandoned) {
        assertThat(table.io().newInputFile(location).exists()).as(location).isFalse();
      }
      abandoned.clear();
      return "orphans";
    }

    private String metadata() {
      ageEverythingButPending();
      MaintenancePolicy policy =
          MaintenancePolicy.defaults().withRetainedMetadataVersions(random.nextInt(3));
      new MetadataCleaner().previewAndCommit("shop.orders", table, policy, now);
      return "metadata";
    }

    private void ageEverythingButPending() {
      Set<String> young = new HashSet<>();
      pending.forEach(file -> young.add(LakeTables.localPath(file.location()).toString()));
      try (var files = Files.walk(LakeTables.tableDirectory(table))) {
        files
            .filter(Files::isRegularFile)
            .filter(file -> !young.contains(file.toString()))
            .forEach(
                file -> LakeTables.age(file.toUri().toString(), now.minus(Duration.ofDays(10))));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    private static List<String> expected(TreeMap<Long, String> model) {
      List<String> rows = new ArrayList<>();
      model.forEach((id, value) -> rows.add(id + ":" + value));
      rows.sort(null);
      return rows;
    }

    private void check(String context) {
      table.refresh();
      LakeTables.assertEveryReferencedFileExists(table);
      assertThat(LakeTables.rows(table)).as(context).isEqualTo(expected(main));
      for (Map.Entry<String, List<String>> tag : refs.entrySet()) {
        assertThat(LakeTables.rowsAt(table, table.refs().get(tag.getKey()).snapshotId()))
            .as(context + ", tag " + tag.getKey())
            .isEqualTo(tag.getValue());
      }
      for (Map.Entry<String, TreeMap<Long, String>> branch : branches.entrySet()) {
        assertThat(LakeTables.rowsAt(table, table.refs().get(branch.getKey()).snapshotId()))
            .as(context + ", branch " + branch.getKey())
            .isEqualTo(expected(branch.getValue()));
      }
      for (DataFile file : pending) {
        assertThat(table.io().newInputFile(file.location()).exists()).as(context).isTrue();
      }
    }
  }
}
