package dev.floe.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.Secret;
import dev.floe.core.alert.AlertSettings;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.config.VerificationSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.state.TableKey;
import dev.floe.server.KeeperService;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.VerificationRun;
import dev.floe.server.syncs.SyncReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The demo's keeper part: the keeper {@code floe serve} runs ({@link RunningKeeper}) on the demo's
 * data directory, keeping the demo's tables, with the demo's sync reporting to it and one scheduled
 * verification of the synced orders, run once on demand.
 */
final class DemoKeeper implements AutoCloseable {

  /** The demo's scheduled verification, as the API and the dashboard name it. */
  static final String VERIFICATION = "demo-orders";

  /** The demo keeper looks at the catalog this often, so it follows the sync within seconds. */
  static final Duration REFRESH_INTERVAL = Duration.ofSeconds(2);

  private static final Duration WAIT = Duration.ofMinutes(3);
  private static final Duration POLL = Duration.ofMillis(250);

  private final RunningKeeper keeper;
  private final String catalog;
  private final Instant startedAt;

  private DemoKeeper(RunningKeeper keeper, Instant startedAt) {
    this.keeper = keeper;
    this.catalog = keeper.service().catalogNames().get(0);
    this.startedAt = startedAt;
  }

  /**
   * Starts the keeper on the demo's tables only ({@code demo_shop.*} of the top-level catalog),
   * with no alert channel (the demo notifies nobody; its alerts show on the dashboard) and the demo
   * verification: {@code shop.orders} against {@code demo_shop.orders}, rows changed before {@code
   * cutoff}. It listens on {@code keeper.listen} (127.0.0.1:8420), or on a free port of the same
   * host when that one is taken.
   *
   * @param cutoff the verification's cutoff, an ISO date-time in the source's time zone
   */
  static DemoKeeper start(
      FloeSettings settings, MySqlSourceAddress source, String cutoff, ZoneId sourceZone) {
    KeeperSettings user = settings.keeper();
    VerificationSettings verification =
        new VerificationSettings(
            VERIFICATION,
            source,
            "shop.orders",
            Optional.of(DemoSync.NAMESPACE + ".orders"),
            "updated_at",
            VerificationSettings.DEFAULT_WINDOW,
            cutoff,
            VerificationSettings.DEFAULT_AT,
            Optional.of(sourceZone));
    KeeperSettings demo =
        new KeeperSettings(
            user.listen(),
            user.apiToken(),
            REFRESH_INTERVAL,
            user.quarantineAfterFailures(),
            user.taskTimeout(),
            user.historyRetention(),
            List.of(DemoSync.NAMESPACE + "\\..*"),
            List.of(),
            user.store(),
            user.optimizer(),
            user.maintenance(),
            List.of(),
            AlertSettings.defaults(),
            Optional.empty(),
            List.of(verification));
    ListenAddress listen =
        free(user.listen()) ? user.listen() : new ListenAddress(user.listen().host(), 0);
    Instant startedAt = Instant.now();
    return new DemoKeeper(
        RunningKeeper.start(settings, demo, listen, Clock.systemUTC()), startedAt);
  }

  private static boolean free(ListenAddress listen) {
    try (ServerSocket socket =
        new ServerSocket(listen.port(), 1, InetAddress.getByName(listen.host()))) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  KeeperService service() {
    return keeper.service();
  }

  /** The dashboard's address, ending in {@code /}; the API is under it. */
  URI dashboard() {
    return keeper.dashboard();
  }

  /** The token the API and the dashboard ask for, if {@code keeper.api-token} is set. */
  Optional<Secret> token() {
    return keeper.service().settings().apiToken();
  }

  /** How to open the dashboard: its address, and how to log in when a token is set. */
  String howToOpen() {
    return dashboard()
        + (token().isPresent()
            ? " (log in with keeper.api-token at " + dashboard() + "login)"
            : " (no token: it listens on loopback, for this machine only)");
  }

  /** When the keeper started; its runs from then on are the demo's. */
  Instant startedAt() {
    return startedAt;
  }

  TableKey key(String table) {
    return new TableKey(catalog, DemoSync.NAMESPACE + "." + table);
  }

  /**
   * Waits for the keeper's first look at the catalog, so it has forgotten the previous demo run's
   * tables (dropped by {@link DemoSync#reset}) before the sync creates them again.
   */
  boolean awaitFirstRefresh() throws InterruptedException {
    return await(
            () ->
                service().discovery().lastRefresh().isAfter(startedAt)
                    ? Optional.of(true)
                    : Optional.empty())
        .isPresent();
  }

  /** Waits until the keeper has found and scanned every demo table, and prints them. */
  boolean awaitTables(PrintWriter out) throws InterruptedException {
    Optional<List<TableRecord>> tables =
        await(
            () -> {
              List<TableRecord> found = new ArrayList<>();
              for (String table : DemoSync.TABLES) {
                Optional<TableRecord> record = service().registry().get(key(table));
                if (record.isEmpty() || record.get().metadataLocation().isEmpty()) {
                  return Optional.empty();
                }
                found.add(record.get());
              }
              return Optional.of(found);
            });
    if (tables.isEmpty()) {
      out.println(
          "    the keeper did not find every demo table within " + WAIT.toMinutes() + " min");
      return false;
    }
    out.println("    the keeper keeps " + tables.get().size() + " tables:");
    for (TableRecord table : tables.get()) {
      out.printf(
          Locale.ROOT,
          "      %-24s %-8s health %3d/100, %d data files, %d delete files%n",
          table.key().table(),
          table.status().name().toLowerCase(Locale.ROOT),
          table.health(),
          table.dataFiles(),
          table.deleteFiles());
    }
    return true;
  }

  /** Waits for the sync's report of every table in its binlog phase, and prints it. */
  boolean awaitSyncReport(PrintWriter out) throws InterruptedException {
    Optional<SyncReport> report =
        await(
            () ->
                service()
                    .syncs()
                    .get(DemoSync.NAME)
                    .filter(
                        sync ->
                            sync.state().equals("running")
                                && sync.tables().size() == DemoSync.TABLES.size()
                                && sync.tables().stream()
                                    .allMatch(table -> table.phase().equals("binlog"))));
    if (report.isEmpty()) {
      out.println(
          "    the keeper had no report of the sync in its binlog phase within "
              + WAIT.toMinutes()
              + " min");
      return false;
    }
    out.printf(
        Locale.ROOT,
        "    the keeper has the sync's report: %s %s, %d tables in the binlog phase%s%n",
        report.get().name(),
        report.get().state(),
        report.get().tables().size(),
        report
            .get()
            .lagMs()
            .map(lag -> String.format(Locale.ROOT, ", lag %.1f s", lag / 1000.0))
            .orElse(""));
    return true;
  }

  /**
   * Runs the demo verification now through the keeper's scheduler (what {@code POST
   * /api/v1/verifications/demo-orders/run} does), waits for it and prints its result.
   *
   * @return whether it ran and found the lake equal to MySQL
   */
  boolean verify(PrintWriter out) throws InterruptedException {
    Instant asked = Instant.now();
    if (service().verifications().requestRun(VERIFICATION)
        == dev.floe.server.verify.VerificationScheduler.Request.UNKNOWN) {
      out.println("    the keeper has no verification " + VERIFICATION);
      return false;
    }
    Optional<VerificationRun> run =
        await(
            () ->
                service()
                    .verifications()
                    .lastRun(VERIFICATION)
                    .filter(last -> !last.startedAt().isBefore(asked.minusSeconds(1)))
                    .filter(last -> !service().verifications().running(VERIFICATION)));
    if (run.isEmpty()) {
      out.println("    the verification did not finish within " + WAIT.toMinutes() + " min");
      return false;
    }
    VerificationRun result = run.get();
    double seconds = Duration.between(result.startedAt(), result.finishedAt()).toMillis() / 1000.0;
    switch (result.result()) {
      case VerificationRun.EQUAL -> {
        JsonNode report = report(result);
        out.printf(
            Locale.ROOT,
            "    equal in %.1f s: %d rows compared, none missing, extra or different in the lake"
                + " (%d changed after the cutoff, left to the next run)%n",
            seconds,
            report.path("rows_compared").asLong(),
            report.path("changed_after_cutoff").asLong());
      }
      case VerificationRun.DIFFERENT ->
          out.printf(
              Locale.ROOT,
              "    different in %.1f s: %d missing in the lake, %d extra, %d different%n",
              seconds,
              result.missing(),
              result.extra(),
              result.different());
      default -> out.println("    failed: " + result.error().orElse("no reason given"));
    }
    out.println(
        "    the report: GET "
            + dashboard()
            + "api/v1/verifications/"
            + VERIFICATION
            + ", or the dashboard's Verifications page");
    return result.result().equals(VerificationRun.EQUAL);
  }

  private static JsonNode report(VerificationRun run) {
    try {
      return new ObjectMapper().readTree(run.report().orElse("{}"));
    } catch (IOException e) {
      return new ObjectMapper().createObjectNode();
    }
  }

  /**
   * Looks every {@link #POLL} until {@code probe} finds a value or {@link #WAIT} has passed.
   *
   * @return the value, empty after the deadline
   */
  static <T> Optional<T> await(Supplier<Optional<T>> probe) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      Optional<T> value = probe.get();
      if (value.isPresent() || System.nanoTime() > deadline) {
        return value;
      }
      Thread.sleep(POLL.toMillis()); // polling a condition, bounded by the deadline
    }
  }

  /** Stops the keeper as {@code floe serve} stops on Ctrl-C. */
  @Override
  public void close() {
    keeper.close();
  }
}
