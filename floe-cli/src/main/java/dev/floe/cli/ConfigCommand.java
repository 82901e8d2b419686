package dev.floe.cli;

import dev.floe.config.ConfigReference;
import dev.floe.core.Secret;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.KeeperCatalog;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.MaintenanceIntervals;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.StoreSettings;
import dev.floe.core.config.VerificationSettings;
import dev.floe.core.maintenance.DurationText;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.iceberg.CatalogFactory;
import java.io.PrintWriter;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code floe config}: the configuration in effect, or the reference of every key. */
@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    description = {
      "Print the configuration in effect (defaults applied, secrets masked) and the catalog"
          + " properties any Iceberg client needs to read Floe's tables.",
      "With --reference, print every floe.yaml key with its type, default and meaning."
    })
final class ConfigCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Option(names = "--reference", description = "Print the floe.yaml reference (Markdown).")
  boolean reference;

  @Override
  public Integer call() {
    PrintWriter out = floe.spec.commandLine().getOut();
    if (reference) {
      out.print(ConfigReference.markdown());
      return ExitCodes.OK;
    }
    FloeSettings settings = floe.settings();
    out.println(
        "# "
            + floe.configFile()
                .map(file -> "from " + file)
                .orElse("embedded defaults (no --config)"));
    out.println("data-dir: " + settings.dataDirectory());
    CatalogSettings catalog = settings.catalog();
    out.println("catalog:");
    printCatalog(out, catalog, "  ", "  ");
    if (settings.sourceUrl().isPresent() || settings.sourcePassword().isPresent()) {
      out.println("source:");
      settings
          .sourceUrl()
          .ifPresent(url -> out.println("  url: " + MySqlSourceAddress.maskPassword(url)));
      settings.sourcePassword().ifPresent(password -> out.println("  password: " + password));
    }
    out.println("doctor:");
    out.println("  min-binlog-retention-hours: " + settings.minimumBinlogRetention().toHours());
    printKeeper(out, settings);
    if (catalog.type() == CatalogType.EMBEDDED) {
      out.println();
      out.println(
          "# Any Iceberg client (Spark, Flink, Trino, PyIceberg) reads Floe's tables as catalog '"
              + catalog.name()
              + "' with:");
      printMasked(out, CatalogFactory.embeddedProperties(settings.dataDirectory()), "#   ");
    }
    return ExitCodes.OK;
  }

  /**
   * A catalog section's keys; {@code firstIndent} starts the first line ({@code "- "} in a list).
   */
  private static void printCatalog(
      PrintWriter out, CatalogSettings catalog, String firstIndent, String indent) {
    out.println(firstIndent + "type: " + catalog.type().configName());
    out.println(indent + "name: " + catalog.name());
    catalog.uri().ifPresent(uri -> out.println(indent + "uri: " + uri));
    catalog.warehouse().ifPresent(warehouse -> out.println(indent + "warehouse: " + warehouse));
    if (!catalog.properties().isEmpty()) {
      out.println(indent + "properties:");
      printMasked(out, catalog.properties(), indent + "  ");
    }
  }

  private static void printKeeper(PrintWriter out, FloeSettings settings) {
    KeeperSettings keeper = settings.keeper();
    out.println("keeper:");
    out.println("  listen: " + keeper.listen());
    keeper.apiToken().ifPresent(token -> out.println("  api-token: " + token));
    out.println("  refresh-interval-seconds: " + keeper.refreshInterval().toSeconds());
    out.println("  quarantine-after-failures: " + keeper.quarantineAfterFailures());
    out.println("  task-timeout: " + DurationText.format(keeper.taskTimeout()));
    out.println("  history-retention: " + DurationText.format(keeper.historyRetention()));
    printPatterns(out, "  include: ", keeper.include());
    printPatterns(out, "  exclude: ", keeper.exclude());
    StoreSettings store = keeper.store();
    out.println("  store:");
    out.println("    url: " + StoreSettings.maskPassword(store.jdbcUrl(settings.dataDirectory())));
    store.user().ifPresent(user -> out.println("    user: " + user));
    store.password().ifPresent(password -> out.println("    password: " + password));
    OptimizerSettings optimizer = keeper.optimizer();
    out.println("  optimizer:");
    out.println("    threads: " + optimizer.threads());
    out.println("    table-share: " + optimizer.tableShare());
    out.println("    lease-timeout: " + DurationText.format(optimizer.leaseTimeout()));
    MaintenanceIntervals maintenance = keeper.maintenance();
    out.println("  maintenance:");
    out.println("    expire-interval: " + DurationText.format(maintenance.expire()));
    out.println("    metadata-interval: " + DurationText.format(maintenance.metadata()));
    out.println("    orphan-interval: " + DurationText.format(maintenance.orphans()));
    if (!keeper.catalogs().isEmpty()) {
      out.println("  catalogs:");
      for (KeeperCatalog item : keeper.catalogs()) {
        printCatalog(out, item.catalog(), "    - ", "      ");
        printPatterns(out, "      include: ", item.include());
        printPatterns(out, "      exclude: ", item.exclude());
      }
    }
    if (!keeper.verifications().isEmpty()) {
      out.println("  verifications:");
      for (VerificationSettings item : keeper.verifications()) {
        // The source prints with its password masked.
        out.println("    - name: " + item.name());
        out.println("      source: " + item.source());
        out.println("      table: " + item.table());
        item.target().ifPresent(target -> out.println("      target: " + target));
        out.println("      time-column: " + item.timeColumn());
        out.println("      window: " + item.window());
        out.println("      cutoff: " + item.cutoff());
        out.println("      at: \"" + item.at() + "\"");
        out.println(
            "      time-zone: "
                + item.timeZone().map(ZoneId::getId).orElse("(asked from the source)"));
      }
    }
  }

  /** A list of regular expressions in YAML flow style, single-quoted so backslashes stay. */
  private static void printPatterns(PrintWriter out, String prefix, List<String> patterns) {
    if (!patterns.isEmpty()) {
      out.println(
          prefix
              + patterns.stream()
                  .map(pattern -> "'" + pattern.replace("'", "''") + "'")
                  .collect(Collectors.joining(", ", "[", "]")));
    }
  }

  private static void printMasked(PrintWriter out, Map<String, String> properties, String indent) {
    properties.forEach(
        (key, value) ->
            out.println(indent + key + ": " + (Secret.isSecretName(key) ? Secret.MASK : value)));
  }
}
