package dev.floe.sync;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.DeclaredSchema;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plain JSON target table of a sync with a declared schema ({@code --schema}): checked against
 * the schema before the job starts, and created from it (with {@code --partition}) when missing, so
 * the readers find it and read each value as its declared type. An existing table is never changed
 * to fit the schema: a difference stops the start instead.
 */
final class DeclaredTargetTable {

  private static final Logger LOG = LoggerFactory.getLogger(DeclaredTargetTable.class);

  private DeclaredTargetTable() {}

  /**
   * Refuses an existing target whose columns differ from the declared ones; nothing is changed.
   *
   * @throws FloeException BAD_INPUT naming the table, the column that differs and the fixes
   */
  static void requireMatches(Catalog catalog, KafkaSyncOptions options) {
    if (options.schema().isEmpty()) {
      return;
    }
    TableIdentifier identifier = TableIdentifier.parse(options.target().orElseThrow());
    if (!catalog.tableExists(identifier)) {
      return;
    }
    Table table = catalog.loadTable(identifier);
    Optional<String> difference = DeclaredSchema.difference(options.schema().get(), table.schema());
    if (difference.isPresent()) {
      throw FloeException.badInput(
          "--schema (sync.kafka.schema) does not match the existing Iceberg table "
              + identifier
              + ": "
              + difference.get()
              + ". Nothing was changed. Drop --schema to sync into the table as it is (its"
              + " types stand), or alter the table to the declared column; Floe never changes"
              + " an existing table to fit --schema.");
    }
  }

  /**
   * Creates the target from the declared schema and partitioning when it does not exist yet.
   *
   * @return whether this created it
   */
  static boolean createIfMissing(Catalog catalog, KafkaSyncOptions options) {
    if (options.schema().isEmpty()) {
      return false;
    }
    TableIdentifier identifier = TableIdentifier.parse(options.target().orElseThrow());
    if (catalog.tableExists(identifier)) {
      return false;
    }
    try {
      TableProvisioner.create(
          catalog,
          identifier,
          options.target().get(),
          options.schema().get(),
          options.targetPartitioning(),
          Map.of(KafkaTables.SYNC_PROPERTY, options.name()));
    } catch (AlreadyExistsException createdConcurrently) {
      requireMatches(catalog, options);
      return false;
    }
    LOG.info(
        "created Iceberg table {} from --schema {}, partitioned by {}",
        identifier,
        options.schema().get().asStruct(),
        options.targetPartitioning());
    return true;
  }
}
