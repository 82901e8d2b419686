package dev.floe.cli;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.verify.VerifyReport;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.verify.VerifyJob;
import dev.floe.verify.VerifyProgress;
import dev.floe.verify.VerifyRequest;
import dev.floe.verify.VerifyResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code floe verify}: does the lake hold the same data as the MySQL table? */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Compare a MySQL/MariaDB table with its Iceberg table: the full contents of rows whose time"
          + " column is in [cutoff - window, cutoff), and the primary keys of all rows before the"
          + " cutoff. MySQL is read in primary-key slices found by walking the key index; counts"
          + " and hashes are computed inside MySQL and only differing slices are narrowed down to"
          + " rows. See docs/verify.md.",
      "Exit code: 0 equal, 1 differences found, 2 could not compare."
    })
final class VerifyCommand implements Callable<Integer> {

  private static final int SHOWN_KEYS = 20;

  @ParentCommand FloeCommand floe;

  @Option(
      names = "--source",
      paramLabel = "URL",
      description = "mysql://USER[:PASSWORD]@HOST[:PORT] (default: source.url).")
  String source;

  @Option(
      names = "--table",
      required = true,
      paramLabel = "DB.TABLE",
      description = "The MySQL table.")
  String table;

  @Option(
      names = "--target",
      paramLabel = "NAMESPACE.TABLE",
      description = "The lake table (default: the same DB.TABLE).")
  String target;

  @Option(
      names = "--window",
      defaultValue = "7d",
      paramLabel = "LENGTH",
      description =
          "How far before the cutoff rows are compared in full: 7d, 36h, 90m (default: ${DEFAULT-VALUE}).")
  String window;

  @Option(
      names = "--cutoff",
      defaultValue = "today",
      paramLabel = "WHEN",
      description =
          "today, a date (2026-11-29) or an ISO date-time (2026-11-29T06:00), in the source's"
              + " time zone; rows changed at or after it are not compared (default: ${DEFAULT-VALUE}).")
  String cutoff;

  @Option(
      names = "--time-column",
      required = true,
      paramLabel = "COLUMN",
      description = "The DATE/DATETIME/TIMESTAMP column set on every insert and update.")
  String timeColumn;

  @Option(
      names = "--key",
      split = ",",
      paramLabel = "COLUMN",
      description =
          "Match rows by these columns instead of the primary key (a unique index on exactly"
              + " them, NOT NULL), e.g. --key tenant,code; needed for tables without a primary"
              + " key.")
  List<String> key = new ArrayList<>();

  @Option(
      names = "--threads",
      defaultValue = "2",
      paramLabel = "N",
      description = "Slices compared at once (default: ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--max-queries",
      paramLabel = "N",
      description = "MySQL queries at once (default: --threads).")
  Integer maximumQueries;

  @Option(
      names = "--max-threads-running",
      defaultValue = "32",
      paramLabel = "N",
      description =
          "Pause while the source's Threads_running is above this (default: ${DEFAULT-VALUE}).")
  long maximumThreadsRunning;

  @Option(
      names = "--slice-target",
      defaultValue = "1000",
      paramLabel = "MS",
      description =
          "Target time of one MySQL slice query; the slice size adapts (default: ${DEFAULT-VALUE}).")
  long sliceTargetMillis;

  @Option(
      names = "--report",
      paramLabel = "FILE",
      description = "Also write the JSON report to this file.")
  Path report;

  @Option(
      names = "--connect-timeout",
      paramLabel = "SECONDS",
      defaultValue = "10",
      description = "How long to wait for the server (default: ${DEFAULT-VALUE}).")
  int connectTimeoutSeconds;

  @Override
  public Integer call() {
    FloeSettings settings = floe.settings();
    MySqlSourceAddress address =
        SourceAddresses.resolve(Optional.ofNullable(source), settings, floe.environment());
    String[] names = VerifyJob.sourceTable(table, "--table");
    TableIdentifier targetTable = VerifyJob.target(Optional.ofNullable(target), names, "--target");
    VerifyJob job =
        new VerifyJob(
            new VerifyJob.Limits(
                threads,
                Optional.ofNullable(maximumQueries),
                maximumThreadsRunning,
                Duration.ofMillis(sliceTargetMillis),
                Duration.ofSeconds(connectTimeoutSeconds)),
            VerifyJob.Names.FLAGS);
    PrintWriter out = floe.spec.commandLine().getOut();
    PrintWriter err = floe.spec.commandLine().getErr();
    VerifyResult result;
    FloeCatalog catalog = floe.context().catalog();
    result =
        job.run(
            new VerifyRequest(
                address, names[0], names[1], targetTable, cutoff, window, timeColumn, key),
            catalog.catalog(),
            new ProgressLine(err));
    VerifyReport verifyReport = result.report();
    out.print(verifyReport.summary(SHOWN_KEYS));
    if (report != null) {
      Path file = floe.workingDirectory().resolve(report);
      writeReport(file, verifyReport.toJson());
      out.println("Report: " + file);
    }
    out.flush();
    return verifyReport.equal() ? ExitCodes.OK : ExitCodes.PROBLEM_FOUND;
  }

  private static void writeReport(Path file, String json) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, json, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw FloeException.badInput(
          "Cannot write the report to "
              + file
              + ": "
              + e.getMessage()
              + ". Choose another --report.");
    }
  }

  /**
   * Prints "slices done / total, rows/s" at most once a second while verify runs, then how many
   * mismatching slices were narrowed down to rows.
   */
  private static final class ProgressLine implements VerifyProgress {
    private final PrintWriter err;
    private long lastPrinted;

    ProgressLine(PrintWriter err) {
      this.err = err;
    }

    @Override
    public synchronized void sliceDone(
        long slicesDone, long slicesFound, boolean walkDone, long rows, Duration elapsed) {
      long now = elapsed.toMillis();
      boolean last = walkDone && slicesDone == slicesFound;
      if (!last && now - lastPrinted < 1000) {
        return;
      }
      lastPrinted = now;
      double seconds = Math.max(0.001, now / 1000.0);
      err.printf(
          "verify: %d/%d%s slices, %d rows, %.0f rows/s%n",
          slicesDone, slicesFound, walkDone ? "" : "+", rows, rows / seconds);
      err.flush();
    }

    @Override
    public synchronized void sliceNarrowed(
        long slicesDone, long slicesMismatching, Duration elapsed) {
      long now = elapsed.toMillis();
      if (slicesDone < slicesMismatching && now - lastPrinted < 1000) {
        return;
      }
      lastPrinted = now;
      err.printf(
          "verify: %d/%d mismatching slices narrowed down to rows%n",
          slicesDone, slicesMismatching);
      err.flush();
    }

    @Override
    public synchronized void paused(String reason) {
      err.println("verify: " + reason);
      err.flush();
    }
  }
}
