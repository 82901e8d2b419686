package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OptimizeCommandTest {

  private static final Schema KEYED =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "name", Types.StringType.get())),
          Set.of(1));

  private static final Schema UNKEYED = new Schema(KEYED.columns());

  @TempDir Path directory;

  private Path lake() {
    return directory.resolve("lake");
  }

  private <T> T withTable(String name, java.util.function.Function<Table, T> action) {
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), lake())) {
      return action.apply(catalog.catalog().loadTable(TableIdentifier.parse(name)));
    }
  }

  private void create(
      String name, Schema schema, Map<String, String> properties, Consumer<Table> fill) {
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), lake())) {
      TableIdentifier identifier = TableIdentifier.parse(name);
      if (catalog.catalog() instanceof SupportsNamespaces namespaces
          && !namespaces.namespaceExists(identifier.namespace())) {
        namespaces.createNamespace(identifier.namespace());
      }
      Map<String, String> all = new HashMap<>();
      all.put(TableProperties.FORMAT_VERSION, "2");
      all.put("floe.optimize.target-file-size-bytes", "1048576");
      all.putAll(properties);
      fill.accept(
          catalog.catalog().createTable(identifier, schema, PartitionSpec.unpartitioned(), all));
    }
  }

  /** 12 small files of 10 rows each, then an equality delete of ids 0-4. */
  private static void smallFilesAndDeletes(Table table) {
    for (int file = 0; file < 12; file++) {
      List<Record> rows = new ArrayList<>();
      for (long id = file * 10L; id < file * 10L + 10; id++) {
        Record row = GenericRecord.create(table.schema());
        row.setField("id", id);
        row.setField("name", "n" + id);
        rows.add(row);
      }
      table.newAppend().appendFile(writeData(table, rows)).commit();
    }
    table
        .newRowDelta()
        .addDeletes(writeEqualityDeletes(table, List.of(0L, 1L, 2L, 3L, 4L)))
        .commit();
  }

  private static DataFile writeData(Table table, List<Record> rows) {
    DataWriter<Record> writer =
        new GenericAppenderFactory(table.schema(), table.spec())
            .newDataWriter(newFile(table), FileFormat.PARQUET, null);
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private static DeleteFile writeEqualityDeletes(Table table, List<Long> ids) {
    Schema keySchema = TypeUtil.select(table.schema(), Set.of(1));
    EqualityDeleteWriter<Record> writer =
        new GenericAppenderFactory(table.schema(), table.spec(), new int[] {1}, keySchema, null)
            .newEqDeleteWriter(newFile(table), FileFormat.PARQUET, null);
    try (writer) {
      for (long id : ids) {
        Record key = GenericRecord.create(keySchema);
        key.setField("id", id);
        writer.write(key);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  private static org.apache.iceberg.encryption.EncryptedOutputFile newFile(Table table) {
    return table
        .encryption()
        .encrypt(
            table
                .io()
                .newOutputFile(
                    table.locationProvider().newDataLocation(UUID.randomUUID() + ".parquet")));
  }

  private static long rows(Table table) {
    long count = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record ignored : records) {
        count++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return count;
  }

  private long snapshotId(String name) {
    return withTable(
        name, table -> table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId());
  }

  @Test
  void dryRunPrintsHealthAndPlanAndChangesNothing() {
    create("shop.orders", KEYED, Map.of(), OptimizeCommandTest::smallFilesAndDeletes);
    long before = snapshotId("shop.orders");

    CliRun run =
        CliRun.run(directory, "--data-dir", "lake", "optimize", "shop.orders", "--dry-run");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("Table shop.orders at snapshot " + before)
        .contains("Health ")
        .contains("12 data files (12 small, 0 large) in 1 partitions")
        .contains("1 delete files (0 position, 1 equality)")
        .contains("Plan: 1 partitions")
        .containsPattern("\\(unpartitioned\\)\\s+deletes\\s+\\d+\\s+12\\s+")
        .contains("1 delete file and never optimized")
        .doesNotContain("Result:")
        .endsWith("Dry run: nothing was changed.\n");
    assertThat(snapshotId("shop.orders")).isEqualTo(before);
  }

  @Test
  void runsThePlanAndPrintsWhatChanged() {
    create(
        "shop.orders",
        KEYED,
        Map.of("floe.optimize.deletes.min-ratio", "0.01"),
        OptimizeCommandTest::smallFilesAndDeletes);

    CliRun run = CliRun.run(directory, "--data-dir", "lake", "optimize", "shop.orders");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("delete ratio 0.04 >= 0.01 (floe.optimize.deletes.min-ratio)")
        .contains("Result:")
        .contains("(unpartitioned): deletes, 1/1 groups committed; 12 data files -> 1,")
        .contains("1 removed;")
        .contains("5 rows deleted")
        .containsPattern("After 100/100: 1 data files \\(1 small, 0 large\\) in 1 partitions");
    assertThat(withTable("shop.orders", OptimizeCommandTest::rows)).isEqualTo(115);
  }

  @Test
  void backoffsRecordedByFloe01AreHonoured() throws IOException {
    create("shop.orders", KEYED, Map.of(), OptimizeCommandTest::smallFilesAndDeletes);
    // Floe 0.1 kept failures per table name only, in a properties file.
    Path legacy = lake().resolve("state/optimize/shop.orders.properties");
    Files.createDirectories(legacy.getParent());
    Files.writeString(
        legacy,
        "#floe optimize failures of shop.orders\n0|=2," + System.currentTimeMillis() + "\n");

    CliRun run =
        CliRun.run(directory, "--data-dir", "lake", "optimize", "shop.orders", "--dry-run");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("Left for a later run:\n  (unpartitioned): deletes backing off after 2 failures");
  }

  @Test
  void aTableThatIsNotFormatV2IsLeftUntouched() {
    create("shop.v1", KEYED, Map.of(TableProperties.FORMAT_VERSION, "1"), table -> {});

    CliRun run = CliRun.run(directory, "--data-dir", "lake", "optimize", "shop.v1");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.COULD_NOT_RUN);
    assertThat(run.err())
        .isEqualTo(
            "Error: Table shop.v1 is Iceberg format v1; floe optimize works on format v2 tables"
                + " (row-level deletes with sequence numbers). Upgrade it with ALTER TABLE ... SET"
                + " TBLPROPERTIES ('format-version'='2').\n");
  }

  @Test
  void aTableWithoutIdentifierFieldsIsOptimizedByItsDeleteFilesKeys() {
    // An append-only or keyless table: its equality deletes name their own key columns.
    create("shop.logs", UNKEYED, Map.of(), OptimizeCommandTest::smallFilesAndDeletes);

    CliRun run = CliRun.run(directory, "--data-dir", "lake", "optimize", "shop.logs");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("12 data files -> 1,")
        .contains("5 rows deleted")
        .containsPattern("After 100/100: 1 data files");
    assertThat(withTable("shop.logs", OptimizeCommandTest::rows)).isEqualTo(115);
  }

  @Test
  void anUnsupportedFileFormatIsLeftUntouched() {
    create("shop.orc", KEYED, Map.of(TableProperties.DEFAULT_FILE_FORMAT, "orc"), table -> {});

    CliRun run = CliRun.run(directory, "--data-dir", "lake", "optimize", "shop.orc");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.COULD_NOT_RUN);
    assertThat(run.err())
        .isEqualTo(
            "Error: Table shop.orc uses the orc file format; floe optimize reads and writes"
                + " Parquet only. Write the table as Parquet (write.format.default=parquet) to"
                + " optimize it.\n");
  }

  @Test
  void aBadPolicyValueNamesThePropertyAndLeavesTheTableUntouched() {
    create(
        "shop.orders",
        KEYED,
        Map.of("floe.optimize.deletes.min-ratio", "2"),
        OptimizeCommandTest::smallFilesAndDeletes);
    long before = snapshotId("shop.orders");

    CliRun run = CliRun.run(directory, "--data-dir", "lake", "optimize", "shop.orders");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.COULD_NOT_RUN);
    assertThat(run.err())
        .isEqualTo(
            "Error: Table shop.orders has floe.optimize.deletes.min-ratio=2, which must be in (0,"
                + " 1]. Fix it with ALTER TABLE ... SET TBLPROPERTIES or remove it to use the"
                + " default (see docs/optimize.md).\n");
    assertThat(snapshotId("shop.orders")).isEqualTo(before);
  }

  @Test
  void anUnknownTableOrABadBudgetIsBadInput() {
    create("shop.orders", KEYED, Map.of(), table -> {});

    CliRun missing = CliRun.run(directory, "--data-dir", "lake", "optimize", "shop.nope");
    CliRun budget =
        CliRun.run(directory, "--data-dir", "lake", "optimize", "shop.orders", "--budget", "lots");
    CliRun name = CliRun.run(directory, "--data-dir", "lake", "optimize", "orders");

    assertThat(missing.err())
        .isEqualTo(
            "Error: Table shop.nope does not exist in catalog 'floe'. Give it as NAMESPACE.TABLE,"
                + " e.g. shop.orders.\n");
    assertThat(budget.err())
        .isEqualTo(
            "Error: --budget must be a number of bytes, optionally with a unit (k, m, g, t), e.g."
                + " 500m or 10g; got 'lots'.\n");
    assertThat(name.err())
        .isEqualTo(
            "Error: 'orders' is not a table name. Give it as NAMESPACE.TABLE, e.g. shop.orders.\n");
  }

  @Test
  void budgetsTakeUnits() {
    assertThat(OptimizeCommand.parseBytes("500")).isEqualTo(500);
    assertThat(OptimizeCommand.parseBytes("500m")).isEqualTo(500L << 20);
    assertThat(OptimizeCommand.parseBytes("10GiB")).isEqualTo(10L << 30);
  }
}
