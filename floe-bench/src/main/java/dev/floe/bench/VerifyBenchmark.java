package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.verify.DifferenceKind;
import dev.floe.core.verify.RowText;
import dev.floe.core.verify.SliceDigest;
import dev.floe.core.verify.VerifyReport;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbServer;
import dev.floe.verify.LakeCopier;
import dev.floe.verify.Verifier;
import dev.floe.verify.VerifyOptions;
import dev.floe.verify.VerifyProgress;
import dev.floe.verify.VerifyRequest;
import dev.floe.verify.VerifyResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;

/**
 * {@code floe verify} on a table of snowflake ids against (a) plain full scans of the MySQL table:
 * {@code SELECT *} streamed to a JDBC client that discards the rows (the plain full scan of the
 * goal: the table read once, to /dev/null), the same reading every value ({@code getObject}, the
 * sync snapshot benchmark's scan), and, for reference, {@code SELECT COUNT(*)} with the window
 * filter inside MariaDB (no rows sent); and (b) a full extract (every row pulled and compared in
 * Floe), in one run: time, CPU of Floe and MariaDB, and bytes MySQL sent (its {@code Bytes_sent}
 * counter).
 */
final class VerifyBenchmark implements Benchmark {

  private static final long BASE_ID = 1_420_000_000_000_000_000L;
  private static final String CUTOFF = "2026-01-01";
  private static final int HISTORY_DAYS = 60;
  private static final String COUNT_SCAN =
      "plain scan: SELECT COUNT(*) WHERE updated_at >= window start (in MariaDB)";
  private static final String SELECT_DISCARD =
      "plain scan: SELECT * streamed over JDBC, rows discarded";
  private static final String SELECT_ALL =
      "plain scan: SELECT * streamed over JDBC, every value read";

  @Override
  public String name() {
    return "verify";
  }

  @Override
  public String description() {
    return "floe verify vs a plain full scan and a full-extract compare (--rows, default 1000000;"
        + " --threads, default 2; --data=DIR keeps MariaDB and the lake in DIR for the next run;"
        + " --baselines=false skips the extract phase; --differences=false the 0.01% case;"
        + " --upserted-files=N also verifies the identical case against a copy of the lake in"
        + " which N data files were upserted through an equality delete file)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int rows = context.intParameter("rows", 1_000_000);
    int threads = context.intParameter("threads", 2);
    boolean baselines = !"false".equals(context.parameters().get("baselines"));
    boolean differences = !"false".equals(context.parameters().get("differences"));
    int upsertedFiles = context.intParameter("upserted-files", 0);
    Optional<Path> kept = Optional.ofNullable(context.parameters().get("data")).map(Path::of);
    Path home = kept.orElse(context.scratchDirectory());
    try (MariaDbServer server =
            MariaDbServer.builder()
                .binlog(false)
                .directory(home.resolve("mariadb"))
                .argument("--innodb-buffer-pool-size=4G")
                .start();
        FloeCatalog catalog =
            new CatalogFactory().open(CatalogSettings.embedded(), home.resolve("lake"))) {
      String database;
      TableIdentifier target;
      if (kept.isPresent()
          && catalog.catalog().tableExists(TableIdentifier.of("bench_kept", "orders"))
          && loaded(server, "bench_kept", rows)) {
        database = "bench_kept";
        target = TableIdentifier.of(database, "orders");
        System.out.printf("reusing %d rows in MariaDB and the lake under %s%n", rows, home);
      } else {
        if (kept.isPresent()) {
          server.execute("DROP DATABASE IF EXISTS bench_kept", "CREATE DATABASE bench_kept");
          database = "bench_kept";
        } else {
          database = server.createDatabase("bench");
        }
        long started = System.nanoTime();
        createOrders(server, database, rows);
        System.out.printf("loaded %d rows into MariaDB in %.1f s%n", rows, seconds(started));
        started = System.nanoTime();
        target = TableIdentifier.of(database, "orders");
        if (catalog.catalog().tableExists(target)) {
          catalog.catalog().dropTable(target, true);
        }
        try (Connection connection = server.rootConnection()) {
          new LakeCopier(100_000)
              .copy(
                  connection,
                  LakeCopier.shape(connection, database, "orders", "updated_at"),
                  catalog.catalog(),
                  target);
        }
        System.out.printf("copied them to the lake in %.1f s%n", seconds(started));
      }
      MySqlSourceAddress source =
          MySqlSourceAddress.parse(server.sourceUrl("root", "", database), "source");
      Table lake = catalog.catalog().loadTable(target);

      // warm the buffer pool and the JIT once; every measured phase then reads from memory
      fullScan(server, database);
      Phase scan = measure(server, () -> fullScan(server, database));
      Phase discard = measure(server, () -> selectAll(server, database, rows, false));
      Phase select = measure(server, () -> selectAll(server, database, rows, true));
      System.out.printf(
          "baselines: COUNT(*) with the window filter %.2f s, SELECT * streamed over JDBC: rows"
              + " discarded %.2f s, every value read %.2f s%n",
          scan.seconds, discard.seconds, select.seconds);
      Phase extract =
          baselines
              ? measure(server, () -> fullExtract(server, database, lake))
              : new Phase(Double.NaN, Double.NaN);
      VerifyResult[] equal = new VerifyResult[1];
      Phase verifyEqual =
          measure(server, () -> equal[0] = verify(source, database, target, catalog, threads));
      printBreakdown("identical (" + equal[0].report().status() + ")", equal[0]);
      List<BenchmarkResult.Measurement> upsertMeasurements = new ArrayList<>();
      List<BenchmarkResult.Ratio> upsertRatios = new ArrayList<>();
      if (upsertedFiles > 0) {
        TableIdentifier upserted = upsertedCopy(catalog, lake, target, upsertedFiles);
        VerifyResult[] result = new VerifyResult[1];
        Phase verifyUpserted =
            measure(server, () -> result[0] = verify(source, database, upserted, catalog, threads));
        printBreakdown(
            "identical, " + upsertedFiles + " files upserted (" + result[0].report().status() + ")",
            result[0]);
        String label = "floe verify, identical, lake with upserts (equality deletes)";
        add(upsertMeasurements, label, verifyUpserted);
        upsertRatios.add(
            new BenchmarkResult.Ratio(
                "verify time / plain full scan time, lake with upserts (identical)",
                verifyUpserted.seconds,
                discard.seconds,
                "s",
                "<= 1.5"));
        upsertRatios.add(
            new BenchmarkResult.Ratio(
                "verify time, lake with upserts / without (identical)",
                verifyUpserted.seconds,
                verifyEqual.seconds,
                "s",
                ""));
      }
      if (!differences) {
        List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
        add(measurements, COUNT_SCAN, scan);
        add(measurements, SELECT_DISCARD, discard);
        add(measurements, SELECT_ALL, select);
        add(measurements, "floe verify, identical tables", verifyEqual);
        measurements.addAll(upsertMeasurements);
        List<BenchmarkResult.Ratio> ratios =
            new ArrayList<>(timeRatios(verifyEqual, scan, discard, select));
        ratios.addAll(upsertRatios);
        return new BenchmarkResult(measurements, ratios);
      }
      int changed = injectDifferences(server, database, rows);
      VerifyResult[] different = new VerifyResult[1];
      Phase verifyDifferent;
      try {
        verifyDifferent =
            measure(
                server, () -> different[0] = verify(source, database, target, catalog, threads));
      } finally {
        if (kept.isPresent()) {
          undoDifferences(server, database, rows);
        }
      }

      printBreakdown("0.01% differ", different[0]);
      VerifyReport equalReport = equal[0].report();
      if (!equalReport.equal()) {
        System.out.println("identical tables compared as different:\n" + equalReport.summary(5));
      }
      VerifyReport differentReport = different[0].report();
      System.out.printf(
          "identical: %s, %d rows compared in %d slices; with %d changed rows: %s, missing %d,"
              + " extra %d, different %d%n",
          equalReport.status(),
          equalReport.rowsCompared(),
          equalReport.slices(),
          changed,
          differentReport.status(),
          differentReport.found(DifferenceKind.MISSING_IN_LAKE).count(),
          differentReport.found(DifferenceKind.EXTRA_IN_LAKE).count(),
          differentReport.found(DifferenceKind.DIFFERENT).count());

      List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
      measurements.add(new BenchmarkResult.Measurement("rows", rows, "rows"));
      add(measurements, COUNT_SCAN, scan);
      add(measurements, SELECT_DISCARD, discard);
      add(measurements, SELECT_ALL, select);
      add(measurements, "full-extract compare (baseline)", extract);
      add(measurements, "floe verify, identical tables", verifyEqual);
      measurements.addAll(upsertMeasurements);
      add(measurements, "floe verify, 0.01% rows differ", verifyDifferent);
      List<BenchmarkResult.Ratio> ratios =
          new ArrayList<>(timeRatios(verifyEqual, scan, discard, select));
      ratios.addAll(upsertRatios);
      ratios.addAll(
          List.of(
              new BenchmarkResult.Ratio(
                  "verify bytes / full-extract bytes (identical)",
                  verifyEqual.bytes,
                  extract.bytes,
                  "bytes",
                  "<= 0.05"),
              new BenchmarkResult.Ratio(
                  "verify time / full-extract time (identical)",
                  verifyEqual.seconds,
                  extract.seconds,
                  "s",
                  ""),
              new BenchmarkResult.Ratio(
                  "verify time / plain full scan time, rows discarded (0.01% differ)",
                  verifyDifferent.seconds, discard.seconds, "s", ""),
              new BenchmarkResult.Ratio(
                  "verify time / full-extract time (0.01% differ)",
                  verifyDifferent.seconds, extract.seconds, "s", ""),
              new BenchmarkResult.Ratio(
                  "verify bytes / full-extract bytes (0.01% differ)",
                  verifyDifferent.bytes, extract.bytes, "bytes", "")));
      return new BenchmarkResult(measurements, ratios);
    }
  }

  /**
   * The time goal against the plain full scan ({@code SELECT *} streamed, rows discarded), and the
   * same ratio against the scan reading every value and against {@code COUNT(*)} inside MariaDB.
   */
  private static List<BenchmarkResult.Ratio> timeRatios(
      Phase verify, Phase count, Phase discard, Phase select) {
    return List.of(
        new BenchmarkResult.Ratio(
            "verify time / plain full scan time, SELECT * rows discarded (identical)",
            verify.seconds,
            discard.seconds,
            "s",
            "<= 1.5"),
        new BenchmarkResult.Ratio(
            "verify time / SELECT * every value read (identical)",
            verify.seconds,
            select.seconds,
            "s",
            ""),
        new BenchmarkResult.Ratio(
            "verify time / COUNT(*) with window filter inside MariaDB (identical)",
            verify.seconds,
            count.seconds,
            "s",
            ""),
        new BenchmarkResult.Ratio(
            "verify CPU / plain full scan CPU, rows discarded (identical; Floe + MariaDB)",
            verify.floeCpu + verify.mysqlCpu,
            discard.floeCpu + discard.mysqlCpu,
            "s",
            ""),
        new BenchmarkResult.Ratio(
            "verify CPU / COUNT(*) CPU (identical; Floe + MariaDB)",
            verify.floeCpu + verify.mysqlCpu,
            count.floeCpu + count.mysqlCpu,
            "s",
            ""));
  }

  /**
   * A copy of the lake table sharing its data files, in which the rows of {@code files} data files
   * spread over the key range were upserted as a sync upserts them: their keys deleted by one
   * equality delete file and the same rows written again into one new data file (whose keys span
   * the table). The content stays identical to MySQL; every data file now has a delete to apply.
   */
  private static TableIdentifier upsertedCopy(
      FloeCatalog catalog, Table lake, TableIdentifier original, int files) throws IOException {
    TableIdentifier copy = TableIdentifier.of(original.namespace(), "orders_upserted");
    if (catalog.catalog().tableExists(copy)) {
      catalog.catalog().dropTable(copy, false); // never purge: the data files are the original's
    }
    Table table =
        catalog.catalog().createTable(copy, lake.schema(), lake.spec(), lake.properties());
    List<DataFile> dataFiles = new ArrayList<>();
    // with their column statistics, which the copy's manifests must carry as the original's do
    try (CloseableIterable<FileScanTask> tasks = lake.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> dataFiles.add(task.file()));
    }
    AppendFiles append = table.newAppend();
    dataFiles.forEach(append::appendFile);
    append.commit();
    Schema schema = table.schema();
    Schema keySchema = schema.select("id");
    GenericAppenderFactory appenders =
        new GenericAppenderFactory(
            table,
            schema,
            table.spec(),
            table.properties(),
            new int[] {schema.findField("id").fieldId()},
            keySchema,
            null);
    EqualityDeleteWriter<Record> deletes =
        appenders.newEqDeleteWriter(newFile(table, "upsert-deletes"), FileFormat.PARQUET, null);
    DataWriter<Record> rows =
        appenders.newDataWriter(newFile(table, "upserted-rows"), FileFormat.PARQUET, null);
    long upserted = 0;
    try (deletes;
        rows) {
      for (int i = 0; i < files; i++) {
        DataFile file = dataFiles.get(i * dataFiles.size() / files);
        try (CloseableIterable<Record> records =
            Parquet.read(table.io().newInputFile(file.location()))
                .project(schema)
                .createReaderFunc(
                    fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                .build()) {
          for (Record record : records) {
            deletes.write(GenericRecord.create(keySchema).copy("id", record.getField("id")));
            rows.write(record.copy());
            upserted++;
          }
        }
      }
    }
    table.newRowDelta().addDeletes(deletes.toDeleteFile()).addRows(rows.toDataFile()).commit();
    System.out.printf(
        "upserted %d rows of %d data files in a copy of the lake table: %s%n",
        upserted, files, copy);
    return copy;
  }

  private static EncryptedOutputFile newFile(Table table, String name) {
    return EncryptedFiles.plainAsEncryptedOutput(
        table
            .io()
            .newOutputFile(
                table
                    .locationProvider()
                    .newDataLocation(name + "-" + UUID.randomUUID() + ".parquet")));
  }

  /** Snowflake-like ids; updated_at spread evenly over the 60 days before the cutoff. */
  private static void createOrders(MariaDbServer server, String database, int rows) {
    String table = "`" + database + "`.orders";
    server.execute(
        "CREATE TABLE "
            + table
            + " (id BIGINT PRIMARY KEY, customer INT NOT NULL, amount"
            + " DECIMAL(12,2) NOT NULL, status VARCHAR(16) NOT NULL, note VARCHAR(64), created_at"
            + " DATETIME(6) NOT NULL, updated_at DATETIME(6) NOT NULL)");
    int chunk = 500_000;
    for (int from = 1; from <= rows; from += chunk) {
      int to = Math.min(rows, from + chunk - 1);
      server.execute(insertRows(database, rows, "seq_" + from + "_to_" + to));
    }
  }

  /** Inserts the rows whose sequence numbers the given MariaDB sequence table holds. */
  private static String insertRows(String database, int rows, String sequence) {
    long secondsOfHistory = HISTORY_DAYS * 86_400L;
    return "INSERT INTO `"
        + database
        + "`.orders SELECT "
        + BASE_ID
        + " + seq * 4194304 + (seq * 7919) % 4096,"
        + " seq % 100003, (seq % 100000) / 100, ELT(1 + seq % 4, 'new', 'paid', 'shipped',"
        + " 'done'), IF(seq % 3 = 0, NULL, CONCAT('order note ', seq)), TIMESTAMP('"
        + CUTOFF
        + "') - INTERVAL 90 DAY + INTERVAL seq SECOND, TIMESTAMP('"
        + CUTOFF
        + "') -"
        + " INTERVAL FLOOR((seq - 1) * "
        + secondsOfHistory
        + " / "
        + rows
        + ") SECOND -"
        + " INTERVAL 1 SECOND FROM `"
        + database
        + "`."
        + sequence;
  }

  /** 0.01% of the rows: half deleted from MySQL, half changed inside the window. */
  private static int injectDifferences(MariaDbServer server, String database, int rows) {
    String table = "`" + database + "`.orders";
    int changes = Math.max(2, rows / 10_000);
    long inWindow = (long) rows * 7 / HISTORY_DAYS;
    List<String> statements = new ArrayList<>();
    for (int i = 0; i < changes / 2; i++) {
      // deleted rows have even sequence numbers, changed rows odd ones: never the same row
      long deleted = 2 * (1 + (long) i * (rows / 2 - 1) / (changes / 2));
      long updated = 2 * ((long) i * (inWindow / 2 - 1) / (changes / 2)) + 1;
      statements.add("DELETE FROM " + table + " WHERE id = " + id(deleted));
      statements.add("UPDATE " + table + " SET amount = amount + 1 WHERE id = " + id(updated));
    }
    server.execute(statements.toArray(String[]::new));
    return changes / 2 * 2;
  }

  /**
   * Puts back what {@link #injectDifferences} changed (idempotent), so a kept table is identical to
   * its lake copy again.
   */
  private static void undoDifferences(MariaDbServer server, String database, int rows) {
    String table = "`" + database + "`.orders";
    int changes = Math.max(2, rows / 10_000);
    long inWindow = (long) rows * 7 / HISTORY_DAYS;
    List<String> statements = new ArrayList<>();
    for (int i = 0; i < changes / 2; i++) {
      long deleted = 2 * (1 + (long) i * (rows / 2 - 1) / (changes / 2));
      long updated = 2 * ((long) i * (inWindow / 2 - 1) / (changes / 2)) + 1;
      statements.add(
          insertRows(database, rows, "seq_" + deleted + "_to_" + deleted)
              .replaceFirst("INSERT INTO", "INSERT IGNORE INTO"));
      statements.add(
          "UPDATE "
              + table
              + " SET amount = "
              + (updated % 100_000)
              + " / 100 WHERE id = "
              + id(updated));
    }
    server.execute(statements.toArray(String[]::new));
  }

  /** Whether a kept database holds the benchmark's table with this many rows. */
  private static boolean loaded(MariaDbServer server, String database, int rows)
      throws SQLException {
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = '"
                    + database
                    + "' AND TABLE_NAME = 'orders'")) {
      if (!result.next()) {
        return false;
      }
    }
    undoDifferences(server, database, rows);
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery("SELECT COUNT(*) FROM `" + database + "`.orders")) {
      result.next();
      return result.getLong(1) == rows;
    }
  }

  private static long id(long seq) {
    return BASE_ID + seq * 4194304L + (seq * 7919) % 4096;
  }

  private static VerifyResult verify(
      MySqlSourceAddress source,
      String database,
      TableIdentifier target,
      FloeCatalog catalog,
      int threads) {
    return new Verifier(
            new MySqlConnections(Duration.ofSeconds(10)),
            VerifyOptions.defaults().withThreads(threads))
        .verify(
            new VerifyRequest(source, database, "orders", target, CUTOFF, "7d", "updated_at"),
            catalog.catalog(),
            VerifyProgress.NONE);
  }

  /**
   * A plain full scan: {@code SELECT *} streamed row by row by Connector/J, nothing kept; with
   * {@code decode} every column of every row is read ({@code getObject}, the sync snapshot
   * benchmark's scan), else the rows are received and discarded.
   */
  private static void selectAll(MariaDbServer server, String database, int rows, boolean decode)
      throws SQLException {
    long seen = 0;
    try (Connection connection = server.rootConnection();
        Statement statement =
            connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      statement.setFetchSize(Integer.MIN_VALUE); // Connector/J streams row by row
      try (ResultSet result = statement.executeQuery("SELECT * FROM `" + database + "`.orders")) {
        int columns = result.getMetaData().getColumnCount();
        while (result.next()) {
          for (int i = 1; decode && i <= columns; i++) {
            result.getObject(i);
          }
          seen++;
        }
      }
    }
    if (seen != rows) {
      throw new IllegalStateException("SELECT * saw " + seen + " rows, expected " + rows);
    }
  }

  private static void fullScan(MariaDbServer server, String database) {
    server.execute(
        "SELECT COUNT(*) FROM `" + database + "`.orders WHERE updated_at >= '2025-12-25'");
  }

  /**
   * The baseline: pull every row from MySQL and every row from the lake, hash each row in Floe,
   * compare; both sides read at once.
   */
  private static void fullExtract(MariaDbServer server, String database, Table lake) {
    CompletableFuture<SliceDigest> lakeSide =
        CompletableFuture.supplyAsync(
            () -> {
              SliceDigest.Accumulator digest = new SliceDigest.Accumulator();
              try (CloseableIterable<Record> records = IcebergGenerics.read(lake).build()) {
                StringBuilder text = new StringBuilder();
                for (Record record : records) {
                  text.setLength(0);
                  for (int i = 0; i < record.size(); i++) {
                    text.append(record.get(i)).append(',');
                  }
                  digest.add(RowText.hash(text.toString()));
                }
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              return digest.digest();
            });
    SliceDigest.Accumulator digest = new SliceDigest.Accumulator();
    try (Connection connection = server.rootConnection();
        Statement statement =
            connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      statement.setFetchSize(Integer.MIN_VALUE);
      try (ResultSet result =
          statement.executeQuery("SELECT * FROM `" + database + "`.orders ORDER BY id")) {
        int columns = result.getMetaData().getColumnCount();
        StringBuilder text = new StringBuilder();
        while (result.next()) {
          text.setLength(0);
          for (int i = 1; i <= columns; i++) {
            text.append(result.getString(i)).append(',');
          }
          digest.add(RowText.hash(text.toString()));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    if (lakeSide.join().rows() != digest.digest().rows()) {
      throw new IllegalStateException("full extract: row counts differ");
    }
  }

  /** Wall time, bytes MySQL sent, and CPU seconds of this JVM and of the MariaDB server. */
  private record Phase(double seconds, double bytes, double floeCpu, double mysqlCpu) {
    Phase(double seconds, double bytes) {
      this(seconds, bytes, Double.NaN, Double.NaN);
    }
  }

  private interface Work {
    void run() throws Exception;
  }

  private static Phase measure(MariaDbServer server, Work work) throws Exception {
    long bytesBefore = bytesSent(server);
    double floeBefore = floeCpuSeconds();
    double mysqlBefore = mysqlCpuSeconds(server);
    long started = System.nanoTime();
    work.run();
    double elapsed = seconds(started);
    Phase phase =
        new Phase(
            elapsed,
            bytesSent(server) - bytesBefore,
            floeCpuSeconds() - floeBefore,
            mysqlCpuSeconds(server) - mysqlBefore);
    System.out.printf(
        "  phase done in %.2f s (CPU: Floe %.2f s, MariaDB %.2f s)%n",
        elapsed, phase.floeCpu(), phase.mysqlCpu());
    return phase;
  }

  /** CPU time of this JVM (all threads, GC and JIT included). */
  private static double floeCpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  /** CPU time of the MariaDB server process (user + system), from /proc; NaN elsewhere. */
  private static double mysqlCpuSeconds(MariaDbServer server) {
    try {
      String pid = Files.readString(server.directory().resolve("mariadb.pid")).trim();
      String stat = Files.readString(Path.of("/proc", pid, "stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // fields after the command: state is 0, utime is 11, stime is 12 (clock ticks, 100/s)
      return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    } catch (java.io.IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** Where the time of one verify run went: phases, and work summed over threads. */
  private static void printBreakdown(String label, VerifyResult result) {
    StringBuilder text = new StringBuilder(label).append(": phases ended at");
    result.phases().entrySet().stream()
        .sorted(java.util.Map.Entry.comparingByValue())
        .forEach(
            phase ->
                text.append(
                    String.format(
                        " %s %.2f s,", phase.getKey(), phase.getValue().toNanos() / 1e9)));
    text.append(" work summed over threads:");
    result
        .work()
        .forEach(
            (kind, value) ->
                text.append(
                    kind.contains("files") || kind.contains("groups")
                        ? String.format(" %s %d,", kind, value)
                        : String.format(" %s %.2f s,", kind, value / 1e9)));
    text.append(" slices ").append(result.report().slices());
    text.append(", narrowed ").append(result.slicesNarrowed());
    System.out.println(text);
  }

  private static long bytesSent(MariaDbServer server) throws SQLException {
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SHOW GLOBAL STATUS LIKE 'Bytes_sent'")) {
      result.next();
      return Long.parseLong(result.getString(2));
    }
  }

  private static void add(
      List<BenchmarkResult.Measurement> measurements, String label, Phase phase) {
    measurements.add(new BenchmarkResult.Measurement(label + ": time", phase.seconds, "s"));
    measurements.add(
        new BenchmarkResult.Measurement(label + ": bytes from MySQL", phase.bytes, "bytes"));
    measurements.add(new BenchmarkResult.Measurement(label + ": Floe CPU", phase.floeCpu, "s"));
    measurements.add(new BenchmarkResult.Measurement(label + ": MariaDB CPU", phase.mysqlCpu, "s"));
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }
}
