package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.RestCatalogServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole flow on Iceberg's own REST catalog server ({@code catalog.type: rest}): sync with live
 * changes, the keeper optimizing beside it, verify, sql ({@link SharedCatalogFlow}).
 */
// slow: the same flow as PostgresCatalogFlowITCase (default suite) on the REST catalog, ~1.5 min
@Tag("slow")
@ExtendWith(MariaDbExtension.class)
class RestCatalogFlowITCase {

  @TempDir Path directory;

  @Test
  void syncKeeperVerifyAndSqlShareARestCatalog(MariaDbServer mariadb) throws Exception {
    try (RestCatalogServer rest = RestCatalogServer.start()) {
      String yaml = String.join("\n", "type: rest", "name: lake", "uri: " + rest.uri());
      SharedCatalogFlow.History history = new SharedCatalogFlow(directory, mariadb, yaml).run();

      assertThat(history.optimizeSnapshots()).isPositive();
      assertThat(history.syncSnapshotsAfterAnOptimize()).isPositive();
    }
  }
}
