package dev.floe.cli;

import dev.floe.config.ConfigReference;
import dev.floe.core.Secret;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.iceberg.CatalogFactory;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
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
    out.println("  type: " + catalog.type().configName());
    out.println("  name: " + catalog.name());
    catalog.uri().ifPresent(uri -> out.println("  uri: " + uri));
    catalog.warehouse().ifPresent(warehouse -> out.println("  warehouse: " + warehouse));
    if (!catalog.properties().isEmpty()) {
      out.println("  properties:");
      printMasked(out, catalog.properties(), "    ");
    }
    if (settings.sourceUrl().isPresent() || settings.sourcePassword().isPresent()) {
      out.println("source:");
      settings
          .sourceUrl()
          .ifPresent(url -> out.println("  url: " + MySqlSourceAddress.maskPassword(url)));
      settings.sourcePassword().ifPresent(password -> out.println("  password: " + password));
    }
    out.println("doctor:");
    out.println("  min-binlog-retention-hours: " + settings.minimumBinlogRetention().toHours());
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

  private static void printMasked(PrintWriter out, Map<String, String> properties, String indent) {
    properties.forEach(
        (key, value) ->
            out.println(indent + key + ": " + (Secret.isSecretName(key) ? Secret.MASK : value)));
  }
}
