package dev.floe.cli;

import dev.floe.core.config.FloeSettings;
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
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code floe demo}: Floe on this machine with nothing set up. Starts a private MariaDB (installing
 * it with apt-get if needed) with a sample shop database, checks it with {@code floe doctor}, syncs
 * it into the embedded lakehouse under live traffic, optimizes the synced orders table, and queries
 * the lake as {@code floe sql} does.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Show Floe working on this machine: start a private MariaDB (binlog on) with a sample shop"
          + " database, check it as a sync source with floe doctor, sync it into the embedded"
          + " lakehouse under the data directory while it takes orders, optimize one of the"
          + " synced tables, and query the lake with floe sql.",
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
      description = "Keep MariaDB running after the demo, until Ctrl-C, to try other commands.")
  boolean keepRunning;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = floe.spec.commandLine().getOut();
    FloeSettings settings = floe.settings();
    out.println("Floe demo");
    out.println();
    out.println("1/7 Starting a private MariaDB (binlog on, ROW format, FULL row image)...");
    out.flush();
    long started = System.nanoTime();
    MariaDbServer server = MariaDbServer.builder().start();
    Thread stopper = new Thread(server::close, "floe-demo-mariadb-stop");
    Runtime.getRuntime().addShutdownHook(stopper);
    try {
      out.printf(
          "    ready on %s:%d in %.1f s%n",
          server.host(), server.port(), (System.nanoTime() - started) / 1e9);
      out.println("2/7 Loading the sample database 'shop'...");
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
      out.println("3/7 Checking it as a sync source: floe doctor --source " + address);
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
      out.println("4/7 Syncing shop into the lake while the shop keeps taking orders...");
      out.flush();
      FloeCatalog catalog = floe.context().catalog();
      DemoSync.run(server, address, catalog, settings, out);
      out.println(
          "5/7 Optimizing "
              + DemoSync.NAMESPACE
              + "."
              + DemoOptimize.TABLE
              + ", as floe optimize does: the sync's small files and deletes, before and"
              + " after...");
      out.flush();
      if (!DemoOptimize.run(
          catalog, settings.dataDirectory().resolve("tmp").resolve("optimize"), out)) {
        out.println("The demo's optimize run failed; stopping.");
        return ExitCodes.PROBLEM_FOUND;
      }
      out.println("6/7 Querying the lake: ./floe sql -e \"" + QUERY + "\"");
      out.println();
      out.flush();
      if (!query(catalog, out)) {
        out.println("The query failed; stopping.");
        return ExitCodes.PROBLEM_FOUND;
      }
      out.println();
      out.println("7/7 The lake is at " + settings.dataDirectory());
      out.println("    (./floe config prints the settings any Iceberg client needs to read it)");
      out.println();
      if (keepRunning) {
        out.println("MariaDB keeps running until you press Ctrl-C. Try:");
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
        new CountDownLatch(1).await();
      }
      out.println("Demo done; stopping MariaDB.");
      return ExitCodes.OK;
    } finally {
      server.close();
      Runtime.getRuntime().removeShutdownHook(stopper);
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
