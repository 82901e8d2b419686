package dev.floe.bench;

import dev.floe.core.Secret;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.config.MaintenanceIntervals;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.StoreSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.server.KeeperService;
import dev.floe.server.maintenance.IcebergMaintenanceJobs;
import dev.floe.server.maintenance.MaintenanceLoop;
import dev.floe.server.store.TableRecord;
import dev.floe.server.workers.WorkerLauncher;
import dev.floe.testing.Poll;
import dev.floe.testing.PostgresServer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * The keeper at scale: N tables in the embedded catalog, or with {@code --catalog=postgresql} in a
 * JDBC catalog on a private PostgreSQL that also holds the keeper's store (registered on one
 * table's metadata, so making them is quick; each is a real table the keeper loads and scans).
 * Measures, once every table is known and evaluated: the time and heap of a refresh that finds no
 * change, against the baseline of listing the catalog and loading every table's metadata (what a
 * keeper without the metadata-location check does each refresh); and the time from a commit to one
 * table until the keeper has evaluated it.
 */
final class KeeperRefreshBenchmark implements Benchmark {

  @Override
  public String name() {
    return "keeper-refresh";
  }

  @Override
  public String description() {
    return "keeper no-change refresh of N tables vs loading every table (--tables, default 10000;"
        + " --catalog=embedded|postgresql)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int tables = context.intParameter("tables", 10_000);
    int refreshSeconds = context.intParameter("refresh-seconds", 30);
    boolean postgres =
        context.choiceParameter("catalog", List.of("embedded", "postgresql")).equals("postgresql");
    Path data = context.scratchDirectory().resolve("keeper-refresh");
    try (PostgresServer server = postgres ? PostgresServer.builder().start() : null) {
      CatalogSettings catalogSettings = CatalogSettings.embedded();
      StoreSettings store = StoreSettings.defaults();
      if (server != null) {
        // The catalog and the keeper's store both on the PostgreSQL server, as a team sharing
        // one catalog database would run it.
        catalogSettings =
            new CatalogSettings(
                CatalogType.JDBC,
                "bench",
                Optional.of(server.jdbcUrl(server.createDatabase("catalog"))),
                Optional.of(data.resolve("warehouse").toUri().toString()),
                Map.of("jdbc.user", server.user(), "jdbc.password", server.password()));
        store =
            new StoreSettings(
                Optional.of(server.jdbcUrl(server.createDatabase("keeper"))),
                Optional.of(server.user()),
                Optional.of(Secret.of(server.password())));
      }
      return run(tables, refreshSeconds, data, catalogSettings, store);
    }
  }

  private BenchmarkResult run(
      int tables,
      int refreshSeconds,
      Path data,
      CatalogSettings catalogSettings,
      StoreSettings store)
      throws Exception {
    List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
    try (FloeCatalog catalog = new CatalogFactory().open(catalogSettings, data)) {
      long started = System.nanoTime();
      register(catalog, tables);
      measurements.add(
          new BenchmarkResult.Measurement(
              "tables registered", (System.nanoTime() - started) / 1e9, "s"));

      KeeperSettings settings =
          KeeperSettings.builder()
              .listen(new ListenAddress("127.0.0.1", 0))
              .refreshInterval(Duration.ofSeconds(refreshSeconds))
              .store(store)
              .optimizer(new OptimizerSettings(1, 0.5, Duration.ofSeconds(30)))
              .maintenance(
                  new MaintenanceIntervals(
                      Duration.ofDays(365), Duration.ofDays(365), Duration.ofDays(365)))
              .build();
      try (KeeperService keeper =
          KeeperService.create(
              data,
              catalogSettings,
              settings,
              Clock.systemUTC(),
              new IcebergMaintenanceJobs(),
              WorkerLauncher.NONE)) {
        started = System.nanoTime();
        keeper.start();
        keeper.discovery().refreshNow();
        Poll.until(
            "every table evaluated",
            Duration.ofHours(1),
            Duration.ofMillis(500),
            () -> allEvaluated(keeper, tables));
        measurements.add(
            new BenchmarkResult.Measurement(
                "first refresh and evaluation of every table",
                (System.nanoTime() - started) / 1e9,
                "s"));

        List<Double> refreshes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          long start = System.nanoTime();
          keeper.discovery().refresh();
          refreshes.add((System.nanoTime() - start) / 1e6);
        }
        Collections.sort(refreshes);
        double noChange = refreshes.get(2);
        System.gc();
        Runtime runtime = Runtime.getRuntime();
        double heapMiB = (runtime.totalMemory() - runtime.freeMemory()) / (1024.0 * 1024);

        long start = System.nanoTime();
        int loaded = loadEvery(catalog);
        double loadEvery = (System.nanoTime() - start) / 1e6;

        // Commits to five tables, one after the other (so each lands at another point of the
        // refresh cycle), each seen and evaluated by the keeper.
        List<Double> seen = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          String name = "t" + (tables / 2 + i);
          Table one = catalog.catalog().loadTable(TableIdentifier.of("bench", name));
          one.updateProperties().set("bench.touched", Long.toString(System.nanoTime())).commit();
          String location =
              ((HasTableOperations) one).operations().current().metadataFileLocation();
          start = System.nanoTime();
          Poll.until(
              "bench." + name + " re-evaluated",
              Duration.ofSeconds(refreshSeconds * 3L),
              Duration.ofMillis(20),
              () -> evaluatedAt(keeper, "bench." + name, location));
          seen.add((System.nanoTime() - start) / 1e6);
        }
        Collections.sort(seen);
        double commitSeen = seen.get(seen.size() - 1);

        measurements.add(
            new BenchmarkResult.Measurement("no-change refresh (median of 5)", noChange, "ms"));
        measurements.add(new BenchmarkResult.Measurement("heap used after GC", heapMiB, "MiB"));
        measurements.add(
            new BenchmarkResult.Measurement(
                "list and load " + loaded + " tables", loadEvery, "ms"));
        measurements.add(
            new BenchmarkResult.Measurement(
                "commit to re-evaluation, fastest of 5", seen.get(0), "ms"));
        measurements.add(
            new BenchmarkResult.Measurement(
                "commit to re-evaluation, median of 5", seen.get(2), "ms"));
        measurements.add(
            new BenchmarkResult.Measurement(
                "commit to re-evaluation, slowest of 5", commitSeen, "ms"));
        return new BenchmarkResult(
            measurements,
            List.of(
                new BenchmarkResult.Ratio(
                    "no-change refresh vs loading every table",
                    noChange,
                    loadEvery,
                    "ms",
                    "refresh < 5000 ms, heap < 512 MiB"),
                new BenchmarkResult.Ratio(
                    "slowest commit to re-evaluation vs the refresh interval",
                    commitSeen,
                    refreshSeconds * 1000.0,
                    "ms",
                    "<= 1")));
      }
    }
  }

  /** One real table, then N-1 more registered on its metadata file. */
  private static void register(FloeCatalog catalog, int tables) {
    Namespace namespace = Namespace.of("bench");
    ((SupportsNamespaces) catalog.catalog()).createNamespace(namespace);
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "payload", Types.StringType.get())),
            java.util.Set.of(1));
    Table first =
        catalog
            .catalog()
            .createTable(
                TableIdentifier.of(namespace, "t0"),
                schema,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2", MaintenanceLoop.ENABLED, "false"));
    String metadata = ((HasTableOperations) first).operations().current().metadataFileLocation();
    for (int i = 1; i < tables; i++) {
      catalog.catalog().registerTable(TableIdentifier.of(namespace, "t" + i), metadata);
    }
  }

  private static int loadEvery(FloeCatalog catalog) {
    int loaded = 0;
    for (TableIdentifier identifier : catalog.catalog().listTables(Namespace.of("bench"))) {
      catalog.catalog().loadTable(identifier);
      loaded++;
    }
    return loaded;
  }

  private static boolean allEvaluated(KeeperService keeper, int tables) {
    List<TableRecord> all = keeper.registry().all();
    return all.size() == tables
        && keeper.evaluator().backlog() == 0
        && all.stream().allMatch(record -> record.metadataLocation().isPresent());
  }

  private static boolean evaluatedAt(KeeperService keeper, String table, String location) {
    return keeper.registry().all().stream()
        .anyMatch(
            record ->
                record.key().table().equals(table)
                    && record.metadataLocation().equals(Optional.of(location)));
  }
}
