package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.PostgresExtension;
import dev.floe.testing.PostgresServer;
import dev.floe.testing.RestCatalogServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shared catalog that is wrong or unreachable stops a command before it does any work, with one
 * paragraph naming the catalog, its address and why (exit 2), and never the password.
 */
@ExtendWith({PostgresExtension.class, MariaDbExtension.class})
class CatalogUnreachableITCase {

  private static final String WRONG_PASSWORD = "not-the-password-42";

  @TempDir Path directory;

  private CliRun run(String catalogYaml, String... command) throws Exception {
    Path config = directory.resolve("floe.yaml");
    StringBuilder yaml = new StringBuilder("catalog:\n");
    catalogYaml.lines().forEach(line -> yaml.append("  ").append(line).append('\n'));
    Files.writeString(config, yaml);
    String[] args = new String[command.length + 4];
    args[0] = "--config";
    args[1] = config.toString();
    args[2] = "--data-dir";
    args[3] = directory.resolve("data").toString();
    System.arraycopy(command, 0, args, 4, command.length);
    return CliRun.run(directory, args);
  }

  private String jdbc(String uri, String user, String password) {
    return "type: jdbc\nname: lake\nuri: "
        + uri
        + "\nwarehouse: "
        + directory.resolve("warehouse").toUri()
        + "\nproperties:\n  jdbc.user: "
        + user
        + "\n  jdbc.password: "
        + password;
  }

  private static void assertRefused(CliRun run, String catalogAt, String why) {
    String printed = run.out() + run.err();
    assertThat(run.exitCode()).as(printed).isEqualTo(2);
    assertThat(printed)
        .contains("Error: Cannot open catalog 'lake' at " + catalogAt + ": ")
        .contains(why)
        .contains("Check that it is reachable and the catalog settings in floe.yaml.")
        .doesNotContain("\tat ");
  }

  @Test
  void aWrongPasswordIsExplainedWithoutThePassword(PostgresServer postgres) throws Exception {
    String url = postgres.jdbcUrl(postgres.createDatabase("wrong"));

    CliRun run = run(jdbc(url, postgres.user(), WRONG_PASSWORD), "optimize", "shop.orders");

    assertRefused(run, url, "password authentication failed for user \"floe\"");
    assertThat(run.out() + run.err()).doesNotContain(WRONG_PASSWORD);
  }

  @Test
  void aDatabaseThatDoesNotExistIsNamed(PostgresServer postgres) throws Exception {
    String url = postgres.jdbcUrl("no_such_database");

    CliRun run = run(jdbc(url, postgres.user(), postgres.password()), "expire", "shop.orders");

    assertRefused(run, url, "database \"no_such_database\" does not exist");
    assertThat(run.out() + run.err()).doesNotContain(postgres.password());
  }

  @Test
  void aServerThatIsNotThereIsRefused() throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:1/iceberg";

    assertRefused(
        run(jdbc(url, "floe", "x"), "check-history", "shop.orders"),
        url,
        "Connection to 127.0.0.1:1 refused");
  }

  @Test
  void aJdbcUrlNoDriverTakesNamesTheDriversFloeHas() throws Exception {
    String url = "jdbc:postgres://127.0.0.1:1/iceberg";

    assertRefused(
        run(jdbc(url, "floe", "x"), "optimize", "shop.orders"),
        url,
        "No suitable driver found for "
            + url
            + " (Floe has the drivers for jdbc:postgresql:, jdbc:mysql: (MySQL and MariaDB) and"
            + " jdbc:sqlite: URLs)");
  }

  @Test
  void aRestCatalogThatIsNotThereStopsTheKeeperBeforeItServes() throws Exception {
    CliRun run = run("type: rest\nname: lake\nuri: http://127.0.0.1:1", "serve");

    assertRefused(
        run, "http://127.0.0.1:1", "Connect to http://127.0.0.1:1 failed: Connection refused");
    assertThat(run.out()).doesNotContain("Keeper serving");
  }

  @Test
  void aRestUrlThatIsNotTheCatalogsIsRefused() throws Exception {
    try (RestCatalogServer rest = RestCatalogServer.start()) {
      String uri = rest.uri() + "/wrong/path";

      assertRefused(
          run("type: rest\nname: lake\nuri: " + uri, "sql", "-e", "SHOW DATABASES"),
          uri,
          "No route for request: GET wrong/path/v1/config");
    }
  }

  @Test
  void aSyncToAnUnreachableCatalogStopsBeforeItCopiesAnything(MariaDbServer mariadb)
      throws Exception {
    String database = mariadb.createDatabase("unreached");
    mariadb.execute("CREATE TABLE `" + database + "`.t (id INT PRIMARY KEY)");

    CliRun run =
        run(
            "type: rest\nname: lake\nuri: http://127.0.0.1:1",
            "sync",
            "--source",
            mariadb.sourceUrl("root", "", ""),
            "--tables",
            database + "\\..*");

    assertRefused(run, "http://127.0.0.1:1", "Connection refused");
    assertThat(run.out()).doesNotContain("Syncing");
    assertThat(directory.resolve("data").resolve("sync")).doesNotExist();
  }
}
