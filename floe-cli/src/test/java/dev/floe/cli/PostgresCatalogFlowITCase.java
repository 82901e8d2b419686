package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.PostgresExtension;
import dev.floe.testing.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole flow on Iceberg's JdbcCatalog on a private PostgreSQL server ({@code catalog.type:
 * jdbc}): sync with live changes, the keeper optimizing beside it, verify, sql ({@link
 * SharedCatalogFlow}).
 */
@ExtendWith({MariaDbExtension.class, PostgresExtension.class})
class PostgresCatalogFlowITCase {

  @TempDir Path directory;

  @Test
  void syncKeeperVerifyAndSqlShareAJdbcCatalogOnPostgres(
      MariaDbServer mariadb, PostgresServer postgres) throws Exception {
    String database = postgres.createDatabase("iceberg");
    String warehouse = directory.resolve("warehouse").toUri().toString();
    String yaml =
        String.join(
            "\n",
            "type: jdbc",
            "name: lake",
            "uri: " + postgres.jdbcUrl(database),
            "warehouse: " + warehouse,
            "properties:",
            "  jdbc.user: " + postgres.user(),
            "  jdbc.password: " + postgres.password());
    SharedCatalogFlow.History history = new SharedCatalogFlow(directory, mariadb, yaml).run();

    assertThat(history.optimizeSnapshots()).isPositive();
    assertThat(history.syncSnapshotsAfterAnOptimize()).isPositive();
    for (String log : new String[] {"serve.log", "sync.log"}) {
      assertThat(Files.readString(directory.resolve(log)))
          .as("%s never shows the catalog's password", log)
          .doesNotContain(postgres.password());
    }
  }
}
