package dev.floe.cli;

import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.OptimizeJob;
import dev.floe.server.KeeperService;
import dev.floe.server.store.RunRecord;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The demo's optimize part: the keeper optimizes the synced orders table (small files and equality
 * deletes from the streaming sync), asked as {@code POST /api/v1/tables/demo_shop.orders/optimize}
 * asks it, and the demo shows the table's health before and after (the scan {@code floe optimize}
 * prints) and the keeper's optimize runs of it.
 */
final class DemoOptimize {

  static final String TABLE = "orders";

  /** The demo table's {@link OptimizePolicy#RETRY_BACKOFF_MS}. */
  static final String DEMO_RETRY_BACKOFF_MS = "2000";

  private DemoOptimize() {}

  /**
   * Returns whether the keeper's runs succeeded and kept every row (nothing to do counts as
   * success).
   */
  static boolean run(FloeCatalog catalog, DemoKeeper keeper, Path spillRoot, PrintWriter out)
      throws InterruptedException {
    TableIdentifier identifier = TableIdentifier.of(DemoSync.NAMESPACE, TABLE);
    String name = identifier.toString();
    Table table = catalog.catalog().loadTable(identifier);
    OptimizePolicy policy = OptimizePolicy.fromProperties(name, table.properties());
    // Only the scan, read-only: the keeper plans and rewrites with its own OptimizeJob.
    OptimizeJob scanner = new OptimizeJob(spillRoot);
    long rowsBefore = DemoSync.lakeRows(catalog, TABLE);
    OptimizeCommand.printHealth(out, "    before: health", scanner.scan(name, table, policy));
    KeeperService service = keeper.service();
    TableKey key = keeper.key(TABLE);
    // A run the keeper started on its own while the sync wrote may have lost a commit race (a new
    // position delete on a file it replaced); the partition then backs off, 3 min by default. The
    // demo table retries after seconds.
    table.updateProperties().set(OptimizePolicy.RETRY_BACKOFF_MS, DEMO_RETRY_BACKOFF_MS).commit();
    out.println(
        "    (the demo sets "
            + OptimizePolicy.RETRY_BACKOFF_MS
            + "="
            + DEMO_RETRY_BACKOFF_MS
            + " on it: a run that lost a commit race with the sync is retried in seconds)");
    long started = System.nanoTime();
    Instant asked = Instant.now();
    if (service.optimizeNow(key).isEmpty()) {
      out.println("    the keeper does not know " + name);
      return false;
    }
    Instant[] askedAgain = {asked};
    Optional<TableRecord> settled =
        DemoKeeper.await(
            () -> {
              Optional<TableRecord> record = service.registry().get(key);
              if (record.isEmpty()) {
                return Optional.empty();
              }
              TableStatus status = record.get().status();
              if (status == TableStatus.QUARANTINED || status == TableStatus.FAILED) {
                return record;
              }
              table.refresh();
              OptimizeFailures failures = service.store().optimizeFailures(key);
              // Idle, and its last scan was of the table as it is now: nothing left to do, unless
              // a partition waits for its retry.
              boolean scanned =
                  status == TableStatus.IDLE
                      && record
                          .get()
                          .metadataLocation()
                          .filter(metadataLocation(table)::equals)
                          .isPresent();
              if (scanned && failures.failures().isEmpty()) {
                return record;
              }
              Instant now = Instant.now();
              if ((scanned || status == TableStatus.BACKOFF)
                  && retriesDue(failures, policy(table, name), now)
                  && askedAgain[0].isBefore(now.minusSeconds(1))) {
                askedAgain[0] = now;
                service.optimizeNow(key);
              }
              return Optional.empty();
            });
    double seconds = (System.nanoTime() - started) / 1e9;
    if (settled.isEmpty()) {
      out.println("    the keeper did not finish optimizing " + name + " in time");
      return false;
    }
    List<RunRecord> runs =
        service.store().runs(key, 50).stream()
            .filter(run -> run.kind().equals("optimize"))
            .filter(run -> !run.startedAt().isBefore(keeper.startedAt()))
            .sorted(Comparator.comparing(RunRecord::startedAt))
            .toList();
    if (runs.isEmpty()) {
      out.println("    the keeper found nothing to do: the table is healthy");
    }
    for (RunRecord run : runs) {
      out.printf(
          Locale.ROOT,
          "    keeper run: optimize %s in %.1f s, %d files (%s) in, %d (%s) out%s%n",
          run.result(),
          run.duration().toMillis() / 1000.0,
          run.filesIn(),
          bytes(run.bytesIn()),
          run.filesOut(),
          bytes(run.bytesOut()),
          run.startedAt().isBefore(asked) ? " (on its own, while the sync wrote)" : "");
    }
    if (settled.get().status() != TableStatus.IDLE) {
      out.println(
          "    the keeper put "
              + name
              + " in "
              + settled.get().status().name().toLowerCase(Locale.ROOT)
              + ": "
              + settled.get().lastError().orElse("no reason given"));
      return false;
    }
    table.refresh();
    OptimizeCommand.printHealth(out, "    after:  health", scanner.scan(name, table, policy));
    long rowsAfter = DemoSync.lakeRows(catalog, TABLE);
    out.printf(
        Locale.ROOT,
        "    done in %.1f s; rows %d before, %d after%n",
        seconds,
        rowsBefore,
        rowsAfter);
    // A run while the sync wrote may lose a commit race and be retried; the last one counts.
    boolean lastSucceeded =
        runs.isEmpty() || runs.get(runs.size() - 1).result().equals("succeeded");
    return lastSucceeded && rowsBefore == rowsAfter;
  }

  /** Whether every partition that failed may be planned again. */
  private static boolean retriesDue(OptimizeFailures failures, OptimizePolicy policy, Instant now) {
    return failures.failures().keySet().stream()
        .allMatch(
            partition ->
                failures.retryAt(partition, policy).map(at -> !at.isAfter(now)).orElse(true));
  }

  private static OptimizePolicy policy(Table table, String name) {
    return OptimizePolicy.fromProperties(name, table.properties());
  }

  private static String metadataLocation(Table table) {
    return ((HasTableOperations) table).operations().current().metadataFileLocation();
  }

  private static String bytes(long bytes) {
    return dev.floe.core.optimize.OptimizePlanner.bytes(bytes);
  }
}
