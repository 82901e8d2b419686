package dev.floe.verify;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.verify.Bisection;
import dev.floe.core.verify.SliceSizer;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;

/** A MariaDB database, an embedded catalog, and the lake copy of MySQL tables. */
final class VerifyFixture implements AutoCloseable {

  static final String USER = "verifier";
  static final String PASSWORD = "pw-verify";

  final MariaDbServer server;
  final String database;
  final FloeCatalog catalog;
  final MySqlSourceAddress source;

  VerifyFixture(MariaDbServer server, Path dataDirectory) {
    this.server = server;
    this.database = server.createDatabase("verify");
    server.createUser(USER, PASSWORD, "SELECT");
    this.catalog = new CatalogFactory().open(CatalogSettings.embedded(), dataDirectory);
    this.source = MySqlSourceAddress.parse(server.sourceUrl(USER, PASSWORD, database), "--source");
  }

  /** Copies a MySQL table of the test database into the lake as {@code database.table}. */
  TableIdentifier copyToLake(String table, String timeColumn) throws Exception {
    TableIdentifier target = TableIdentifier.of(database, table);
    try (Connection connection = server.rootConnection()) {
      new LakeCopier(700)
          .copy(
              connection,
              LakeCopier.shape(connection, database, table, timeColumn),
              catalog.catalog(),
              target);
    }
    return target;
  }

  /** Copies a MySQL table matched by a user-named unique key into the lake. */
  TableIdentifier copyToLake(String table, String timeColumn, List<String> keyColumns)
      throws Exception {
    TableIdentifier target = TableIdentifier.of(database, table);
    try (Connection connection = server.rootConnection()) {
      new LakeCopier(700)
          .copy(
              connection,
              LakeCopier.shape(connection, database, table, timeColumn, keyColumns),
              catalog.catalog(),
              target);
    }
    return target;
  }

  VerifyResult verify(String table, String cutoff, String window, VerifyOptions options) {
    return verify(table, cutoff, window, options, List.of());
  }

  VerifyResult verify(
      String table, String cutoff, String window, VerifyOptions options, List<String> key) {
    return new Verifier(new MySqlConnections(Duration.ofSeconds(5)), options)
        .verify(
            new VerifyRequest(
                source,
                database,
                table,
                TableIdentifier.of(database, table),
                cutoff,
                window,
                "updated_at",
                key),
            catalog.catalog(),
            VerifyProgress.NONE);
  }

  /** Small slices and a small row-comparison limit, so tests cross slices and bisect. */
  static VerifyOptions smallSlices() {
    return VerifyOptions.defaults().withSliceSizer(new SliceSizer(Duration.ofSeconds(1), 400, 400));
  }

  /** Small slices, and mismatching ones narrowed down to rows this way. */
  static VerifyOptions smallSlices(Bisection bisection) {
    VerifyOptions small = smallSlices();
    return new VerifyOptions(
        small.threads(),
        small.maximumQueries(),
        small.sliceSizer(),
        bisection,
        small.maximumThreadsRunning(),
        small.loadCheckEvery(),
        small.keyLimit());
  }

  @Override
  public void close() {
    catalog.close();
  }
}
