package dev.floe.cli;

import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.iceberg.maintenance.MetadataCleaner;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code floe clean-metadata NS.TABLE}: delete old metadata files and unreachable manifests. */
@Command(
    name = "clean-metadata",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Delete, from the table's metadata directory, *.metadata.json files beyond the retained"
          + " versions (floe.metadata.retained-versions, default: the whole metadata log) and"
          + " manifests, manifest lists and statistics files no snapshot references; only files"
          + " older than floe.orphan.min-age (default 3d). See docs/maintenance.md.",
      "Exit code: 0 done, 2 refused (unknown table, gc.enabled=false, unsafe age, bad option)."
    })
final class CleanMetadataCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Parameters(paramLabel = "NS.TABLE", description = "The table, e.g. shop.orders.")
  String table;

  @Option(
      names = "--dry-run",
      description = "Print what would be deleted (paths, count, bytes); change nothing.")
  boolean dryRun;

  @Option(
      names = "--retain-versions",
      paramLabel = "N",
      description =
          "Keep the newest N previous metadata files (default: floe.metadata.retained-versions).")
  Integer retainVersions;

  @Option(
      names = "--older-than",
      paramLabel = "DURATION",
      description = "Only delete files older than this (default: floe.orphan.min-age, 3d).")
  String olderThan;

  @Option(names = "--force", description = "Allow --older-than below 1h.")
  boolean force;

  @Override
  public Integer call() {
    PrintWriter out = floe.spec.commandLine().getOut();
    FloeContext context = floe.context();
    Table loaded = context.table(table);
    MaintenancePolicy policy = MaintenancePolicy.fromProperties(table, loaded.properties());
    Optional<Duration> age = MaintenanceSupport.duration("--older-than", olderThan);
    policy =
        MaintenanceSupport.atLeast("--retain-versions", retainVersions, 0)
            .map(policy::withRetainedMetadataVersions)
            .orElse(policy);
    policy =
        MaintenanceSupport.orphanPolicy(
            table, policy, MaintenanceAction.CLEAN_METADATA, age, force);
    MetadataCleaner cleaner = new MetadataCleaner();
    MetadataCleaner.Preview preview =
        cleaner.preview(table, loaded, policy, context.clock().instant());
    return MaintenanceSupport.printThenCommit(out, cleaner, loaded, preview, dryRun);
  }
}
