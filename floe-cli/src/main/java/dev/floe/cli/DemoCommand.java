package dev.floe.cli;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.VerificationSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.source.SourceReport;
import dev.floe.core.source.SourceRequirements;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.mysql.SourceDoctor;
import dev.floe.mysql.SourceFactsReader;
import dev.floe.sql.SqlConsole;
import dev.floe.sql.SqlOutputFormat;
import dev.floe.sql.SqlSession;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.SampleShop;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.ZoneId;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code floe demo}: Floe on this machine with nothing set up. Starts a private MariaDB (installing
 * it with apt-get if needed) with a sample shop database, checks it with {@code floe doctor},
 * starts the keeper ({@code floe serve}, with one scheduled verification), syncs the shop into the
 * embedded lakehouse under live traffic with the sync reporting to the keeper, has the keeper
 * optimize the synced orders table and run the verification, and queries the lake as {@code floe
 * sql} does. With {@code --keep-running} all of it stays up until Ctrl-C.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Show Floe working on this machine: start a private MariaDB (binlog on) with a sample shop"
          + " database, check it as a sync source with floe doctor, start the keeper (floe serve,"
          + " with its dashboard) on the data directory, sync the shop into the embedded lakehouse"
          + " while it takes orders (the sync reporting to the keeper), let the keeper optimize"
          + " the synced orders and run a scheduled verification of them once, and query the lake"
          + " with floe sql.",
      "MariaDB is installed with apt-get first if this machine has none."
    })
final class DemoCommand implements Callable<Integer> {

  static final String DEMO_USER = "floe";
  static final String DEMO_PASSWORD = "floe-demo";

  /** The demo's query: small, an aggregate, on fresh data. */
  static final String QUERY =
      "SELECT status, COUNT(*) AS orders, SUM(total) AS revenue FROM "
          + DemoSync.NAMESPACE
          + ".orders GROUP BY status ORDER BY status";

  @ParentCommand FloeCommand floe;

  @Option(
      names = "--keep-running",
      description =
          "Keep everything running after the demo (MariaDB, its traffic, the sync and the keeper"
              + " with its dashboard), until Ctrl-C.")
  boolean keepRunning;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = floe.spec.commandLine().getOut();
    FloeSettings settings = floe.settings();
    out.println("Floe demo");
    out.println();
    out.println("1/8 Starting a private MariaDB (binlog on, ROW format, FULL row image)...");
    out.flush();
    long started = System.nanoTime();
    Parts parts = new Parts(out);
    parts.server = MariaDbServer.builder().start();
    Thread stopper = new Thread(parts::stop, "floe-demo-stop");
    Runtime.getRuntime().addShutdownHook(stopper);
    try {
      MariaDbServer server = parts.server;
      out.printf(
          "    ready on %s:%d in %.1f s%n",
          server.host(), server.port(), (System.nanoTime() - started) / 1e9);
      out.println("2/8 Loading the sample database 'shop'...");
      out.flush();
      server.execute("CREATE DATABASE shop");
      SampleShop.Size size = SampleShop.Size.SMALL;
      SampleShop.create(server, "shop", size);
      server.createUser(DEMO_USER, DEMO_PASSWORD, "SELECT, REPLICATION SLAVE, REPLICATION CLIENT");
      out.printf(
          "    customers %d, products %d, orders %d, order_items %d%n",
          size.customers(), size.products(), size.orders(), size.orderItems());
      String url = server.sourceUrl(DEMO_USER, DEMO_PASSWORD, "shop");
      MySqlSourceAddress address = MySqlSourceAddress.parse(url, "the demo source");
      out.println("3/8 Checking it as a sync source: floe doctor --source " + address);
      out.println();
      SourceReport report =
          new SourceDoctor(
                  new MySqlConnections(Duration.ofSeconds(10)),
                  new SourceFactsReader(),
                  new SourceRequirements(settings.minimumBinlogRetention()))
              .check(address);
      SourceReportPrinter.print(report, out);
      out.println();
      if (!report.passed()) {
        out.println("The demo source failed a check; stopping.");
        return ExitCodes.PROBLEM_FOUND;
      }
      FloeCatalog catalog = floe.context().catalog();
      DemoSync.reset(catalog, settings);
      // The verification compares the rows as loaded: those changed before the traffic starts.
      String cutoff = serverNow(server);
      out.println(
          "4/8 Starting the keeper, as floe serve does, on the lake at "
              + settings.dataDirectory());
      out.flush();
      parts.keeper = DemoKeeper.start(settings, address, cutoff, ZoneId.systemDefault());
      DemoKeeper keeper = parts.keeper;
      out.println("    dashboard: " + keeper.howToOpen());
      out.println(
          "    keeping "
              + DemoSync.NAMESPACE
              + ".*; scheduled verification "
              + DemoKeeper.VERIFICATION
              + ": shop.orders against "
              + DemoSync.NAMESPACE
              + ".orders, rows changed before "
              + cutoff
              + ", daily at "
              + VerificationSettings.DEFAULT_AT
              + " "
              + ZoneId.systemDefault());
      if (!keeper.awaitFirstRefresh()) {
        out.println("The keeper did not look at the catalog; stopping.");
        return ExitCodes.PROBLEM_FOUND;
      }
      out.println(
          "5/8 Syncing shop into the lake while the shop keeps taking orders, reporting to the"
              + " keeper as floe sync --keeper "
              + keeper.dashboard()
              + " does...");
      out.flush();
      parts.sync =
          DemoSync.start(server, address, catalog, settings, keeper.dashboard(), keeper.token());
      if (!parts.sync.awaitCaughtUp(out)
          || !keeper.awaitSyncReport(out)
          || !keeper.awaitTables(out)) {
        out.println("The demo's sync did not get where it should; stopping.");
        return ExitCodes.PROBLEM_FOUND;
      }
      out.println(
          "6/8 The keeper optimizes "
              + DemoSync.NAMESPACE
              + "."
              + DemoOptimize.TABLE
              + " (asked as POST /api/v1/tables/"
              + DemoSync.NAMESPACE
              + "."
              + DemoOptimize.TABLE
              + "/optimize does): the sync's small files and deletes, before and after...");
      out.flush();
      if (!DemoOptimize.run(
          catalog, keeper, settings.dataDirectory().resolve("tmp").resolve("optimize"), out)) {
        out.println("The keeper's optimize failed; stopping.");
        return ExitCodes.PROBLEM_FOUND;
      }
      out.println(
          "7/8 The keeper runs the verification "
              + DemoKeeper.VERIFICATION
              + " now (as POST /api/v1/verifications/"
              + DemoKeeper.VERIFICATION
              + "/run does), with floe verify's job and limits...");
      out.flush();
      if (!keeper.verify(out)) {
        out.println("The verification did not find the lake equal to MySQL; stopping.");
        return ExitCodes.PROBLEM_FOUND;
      }
      out.println("8/8 Querying the lake: ./floe sql -e \"" + QUERY + "\"");
      out.println();
      out.flush();
      if (!query(catalog, out)) {
        out.println("The query failed; stopping.");
        return ExitCodes.PROBLEM_FOUND;
      }
      out.println();
      out.println("The lake is at " + settings.dataDirectory());
      out.println("    (./floe config prints the settings any Iceberg client needs to read it)");
      out.println();
      if (keepRunning) {
        parts.sync.resumeTraffic();
        out.println(
            "Everything keeps running until you press Ctrl-C: MariaDB with its traffic, the sync"
                + " and the keeper.");
        out.println("  dashboard: " + keeper.howToOpen());
        out.println("  ./floe doctor --source " + url);
        out.println(
            "  mariadb -h 127.0.0.1 -P "
                + server.port()
                + " -u "
                + DEMO_USER
                + " -p"
                + DEMO_PASSWORD
                + " shop");
        out.flush();
        CountDownLatch stopRequested = new CountDownLatch(1);
        ServeCommand.handle("INT", stopRequested);
        ServeCommand.handle("TERM", stopRequested);
        stopRequested.await();
        parts.stop();
        return ExitCodes.OK;
      }
      out.println(
          "Demo done; stopping the sync, the keeper and MariaDB (--keep-running keeps them up).");
      return ExitCodes.OK;
    } finally {
      parts.stop();
      try {
        Runtime.getRuntime().removeShutdownHook(stopper);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it stops everything
      }
    }
  }

  /** What the demo started, stopped in reverse order once, by the main thread or the hook. */
  private static final class Parts {
    private final PrintWriter out;
    private final java.util.concurrent.atomic.AtomicBoolean stopped =
        new java.util.concurrent.atomic.AtomicBoolean();
    volatile MariaDbServer server;
    volatile DemoKeeper keeper;
    volatile DemoSync sync;

    Parts(PrintWriter out) {
      this.out = out;
    }

    void stop() {
      if (!stopped.compareAndSet(false, true)) {
        return;
      }
      try {
        if (sync != null) {
          sync.close();
        }
      } catch (Exception e) {
        out.println("    stopping the sync: " + e.getMessage());
      } finally {
        try {
          if (keeper != null) {
            keeper.close();
          }
        } finally {
          if (server != null) {
            server.close();
          }
          out.println("Stopped.");
          out.flush();
        }
      }
    }
  }

  /**
   * The server's time now, to the microsecond, as an ISO date-time in its own time zone: rows the
   * demo loaded within the same second fall before it.
   */
  private static String serverNow(MariaDbServer server) throws java.sql.SQLException {
    try (java.sql.Connection connection = server.rootConnection();
        java.sql.Statement statement = connection.createStatement();
        java.sql.ResultSet row =
            statement.executeQuery("SELECT DATE_FORMAT(NOW(6), '%Y-%m-%dT%H:%i:%s.%f')")) {
      row.next();
      return row.getString(1);
    }
  }

  /** Runs {@link #QUERY} the way {@code floe sql -e} does; returns whether it succeeded. */
  private boolean query(FloeCatalog catalog, PrintWriter out) {
    try (SqlSession session = SqlSession.open(catalog)) {
      return new SqlConsole(
              session,
              SqlOutputFormat.TABLE,
              SqlOutputFormat.TABLE.defaultMaxRows(),
              out,
              floe.spec.commandLine().getErr())
          .runScript(QUERY);
    }
  }
}
