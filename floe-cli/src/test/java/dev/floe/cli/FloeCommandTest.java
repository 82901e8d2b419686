package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.config.ConfigSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class FloeCommandTest {

  @TempDir Path directory;

  @Test
  void helpListsExactlyTheCommandsThatExist() {
    CliRun run = CliRun.run(directory, "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("Usage: floe [-hV] [--verbose] [--config=FILE] [--data-dir=DIR] [COMMAND]");
    assertThat(new CommandLine(new FloeCommand(Map.of(), directory)).getSubcommands().keySet())
        .containsExactly(
            "demo",
            "doctor",
            "sync",
            "verify",
            "config",
            "optimize",
            "expire",
            "clean-orphans",
            "clean-metadata",
            "remove-dangling-deletes",
            "check-history",
            "serve",
            "optimizer",
            "sql");
  }

  @Test
  void everyDefaultAFlagsHelpNamesIsTheConfigKeysDefault() {
    Pattern named = Pattern.compile("default: ([a-z][a-z0-9.-]*[a-z0-9]), ([^)]+)\\)");
    CommandLine root = new CommandLine(new FloeCommand(Map.of(), directory));
    List<String> checked = new ArrayList<>();
    for (CommandLine command : root.getSubcommands().values()) {
      for (CommandLine.Model.OptionSpec option : command.getCommandSpec().options()) {
        Matcher matcher = named.matcher(String.join("", option.description()));
        while (matcher.find()) {
          String key = matcher.group(1);
          String said = matcher.group(2);
          if (said.startsWith("else ") || ConfigSchema.key(key).isEmpty()) {
            continue;
          }
          assertThat(said)
              .as("floe %s %s names %s", command.getCommandName(), option.longestName(), key)
              .isEqualTo(ConfigSchema.key(key).get().defaultValue().orElse("(none)"));
          checked.add(key);
        }
      }
    }
    assertThat(checked).contains("sync.chunk-rows", "sync.parallelism", "keeper.listen");
  }

  @Test
  void everyCommandHasHelp() {
    for (String command :
        List.of(
            "demo",
            "doctor",
            "sync",
            "verify",
            "config",
            "optimize",
            "expire",
            "clean-orphans",
            "clean-metadata",
            "remove-dangling-deletes",
            "check-history",
            "serve",
            "optimizer",
            "sql")) {
      CliRun run = CliRun.run(directory, command, "--help");

      assertThat(run.exitCode()).as(command).isZero();
      assertThat(run.out()).as(command).startsWith("Usage: floe " + command);
    }
  }

  @Test
  void unknownCommandIsAUsageError() {
    CliRun run = CliRun.run(directory, "sink");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Unmatched argument at index 0: 'sink'");
  }

  @Test
  void configShowsEmbeddedDefaultsAndTheClientSettings() {
    CliRun run = CliRun.run(directory, "--data-dir", "lake", "config");

    assertThat(run.exitCode()).isZero();
    Path data = directory.resolve("lake");
    assertThat(run.out())
        .contains("data-dir: " + data)
        .contains("  type: embedded")
        .contains("#   uri: jdbc:sqlite:" + data.resolve("catalog.db"))
        .contains("#   warehouse: " + data.resolve("warehouse").toUri());
  }

  @Test
  void configMasksSecrets() throws Exception {
    Path file = directory.resolve("floe.yaml");
    Files.writeString(
        file,
        """
        catalog:
          properties:
            jdbc.password: ${env:CATALOG_PW}
        source:
          url: mysql://floe:url-secret@db:3306/shop
          password: ${env:SHOP_PW}
        """);

    CliRun run =
        CliRun.run(
            directory,
            Map.of("CATALOG_PW", "cat-secret", "SHOP_PW", "shop-secret"),
            "--config",
            "floe.yaml",
            "config");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("jdbc.password: ******")
        .contains("url: mysql://floe:******@db:3306/shop")
        .contains("password: ******")
        .doesNotContain("cat-secret")
        .doesNotContain("shop-secret")
        .doesNotContain("url-secret");
  }

  @Test
  void configShowsTheScheduledVerificationsWithoutTheSourcePassword() throws Exception {
    Files.writeString(
        directory.resolve("floe.yaml"),
        """
        keeper:
          verifications:
            - { name: orders, source: "mysql://floe:${env:SHOP_PW}@db:3306", table: shop.orders,
                time-column: updated_at, at: "01:15", time-zone: Asia/Shanghai }
        """);

    CliRun run =
        CliRun.run(directory, Map.of("SHOP_PW", "shop-secret"), "--config", "floe.yaml", "config");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(
            "  verifications:\n"
                + "    - name: orders\n"
                + "      source: mysql://floe:******@db:3306\n"
                + "      table: shop.orders\n"
                + "      time-column: updated_at\n"
                + "      window: 7d\n"
                + "      cutoff: today\n"
                + "      at: \"01:15\"\n"
                + "      time-zone: Asia/Shanghai\n")
        .doesNotContain("shop-secret");
  }

  @Test
  void configShowsTheKeeperDefaults() {
    CliRun run = CliRun.run(directory, "--data-dir", "lake", "config");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains(
            "keeper:\n"
                + "  listen: 127.0.0.1:8420\n"
                + "  refresh-interval-seconds: 30\n"
                + "  quarantine-after-failures: 5\n"
                + "  task-timeout: 30m\n"
                + "  history-retention: 30d\n"
                + "  store:\n"
                + "    url: jdbc:sqlite:"
                + directory.resolve("lake/keeper.db")
                + "\n"
                + "  optimizer:\n"
                + "    threads: "
                + Math.max(1, Runtime.getRuntime().availableProcessors() / 2)
                + "\n"
                + "    table-share: 0.5\n"
                + "    lease-timeout: 30s\n"
                + "  maintenance:\n"
                + "    expire-interval: 1h\n"
                + "    metadata-interval: 1h\n"
                + "    orphan-interval: 1d\n");
  }

  @Test
  void configShowsTheKeeperSectionWithItsSecretsMasked() throws Exception {
    Files.writeString(
        directory.resolve("floe.yaml"),
        """
        keeper:
          listen: '[::1]:9000'
          api-token: ${env:FLOE_KEEPER_TOKEN}
          include: ['ods\\..*', "it's"]
          store:
            url: jdbc:postgresql://db:5432/keeper?password=${env:URL_PW}
            user: keeper
            password: ${env:STORE_PW}
          catalogs:
            - name: prod
              type: rest
              uri: http://rest:8181
              properties:
                token: ${env:REST_TOKEN}
                scope: catalog
              exclude: 'tmp\\..*'
        """);

    CliRun run =
        CliRun.run(
            directory,
            Map.of(
                "FLOE_KEEPER_TOKEN", "token-secret",
                "URL_PW", "url-secret",
                "STORE_PW", "store-secret",
                "REST_TOKEN", "rest-secret"),
            "--config",
            "floe.yaml",
            "config");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("  listen: [::1]:9000\n  api-token: ******\n")
        .contains("  include: ['ods\\..*', 'it''s']\n")
        .contains(
            "  store:\n"
                + "    url: jdbc:postgresql://db:5432/keeper?password=******\n"
                + "    user: keeper\n"
                + "    password: ******\n")
        .contains(
            "  catalogs:\n"
                + "    - type: rest\n"
                + "      name: prod\n"
                + "      uri: http://rest:8181\n"
                + "      properties:\n")
        .contains("        token: ******\n")
        .contains("        scope: catalog\n")
        .contains("      exclude: ['tmp\\..*']\n")
        .doesNotContain("token-secret")
        .doesNotContain("url-secret")
        .doesNotContain("store-secret")
        .doesNotContain("rest-secret");
  }

  @Test
  void badConfigIsOneParagraphWithFileAndLineAndNoStackTrace() throws Exception {
    Files.writeString(directory.resolve("floe.yaml"), "catalog:\n  typo: x\n");

    CliRun run = CliRun.run(directory, "--config", "floe.yaml", "config");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith(
            "Error: Config file "
                + directory.resolve("floe.yaml")
                + ", line 2: unknown key 'catalog.typo'.")
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
  }

  @Test
  void verboseWritesTheStackTraceToTheLogFile() throws Exception {
    CliRun run =
        CliRun.run(
            directory, "--verbose", "--data-dir", "data", "doctor", "--source", "mysql//oops");

    Path log = directory.resolve("data/logs/floe.log");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("Error: Invalid --source 'mysql//oops'")
        .contains("Details: " + log);
    assertThat(Files.readString(log))
        .contains("dev.floe.core.error.FloeException")
        .contains("\tat ");
  }

  @Test
  void javaUtilLoggingOfLibrariesGoesToTheVerboseLogAndNeverToTheConsole() throws Exception {
    CliRun run =
        CliRun.run(
            directory, "--verbose", "--data-dir", "data", "doctor", "--source", "mysql//oops");
    assertThat(run.exitCode()).isEqualTo(2);

    java.util.logging.Logger binlogClient =
        java.util.logging.Logger.getLogger("com.github.shyiko.mysql.binlog.BinaryLogClient");
    binlogClient.warning("keepalive connection lost (a test line)");

    assertThat(java.util.logging.Logger.getLogger("").getHandlers())
        .noneMatch(handler -> handler instanceof java.util.logging.ConsoleHandler)
        .isNotEmpty();
    assertThat(Files.readString(directory.resolve("data/logs/floe.log")))
        .contains("keepalive connection lost (a test line)");
  }

  @Test
  void versionIsTheProjectVersion() {
    CliRun run = CliRun.run(directory, "--version");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).matches("Floe \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\s*");
  }
}
