package dev.floe.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.verify.Bisection;
import dev.floe.core.verify.DifferenceKind;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.VerifyReport;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(MariaDbExtension.class)
class VerifierITCase {

  /** Snowflake-like ids: huge, with uneven gaps. */
  static final long BASE_ID = 1_420_000_000_000_000_000L;

  static final String CUTOFF = "2026-01-01";

  @TempDir Path directory;
  VerifyFixture fixture;

  @BeforeEach
  void start(MariaDbServer server) {
    fixture = new VerifyFixture(server, directory);
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  /** 3,000 orders; updated_at runs backwards from 2025-12-31 23:00, one row an hour. */
  private void createOrders() {
    fixture.server.execute(
        "CREATE TABLE `"
            + fixture.database
            + "`.orders (id BIGINT PRIMARY KEY, customer INT,"
            + " amount DECIMAL(10,2), note VARCHAR(40), updated_at DATETIME(6) NOT NULL)",
        "INSERT INTO `"
            + fixture.database
            + "`.orders SELECT "
            + BASE_ID
            + " + seq * 4194304 +"
            + " (seq * seq) % 4096, seq % 97, seq * 1.25, IF(seq % 5 = 0, NULL, CONCAT('n',"
            + " seq)), TIMESTAMP('2025-12-31 23:00:00') - INTERVAL seq HOUR FROM `"
            + fixture.database
            + "`.seq_1_to_3000");
  }

  private static long id(int seq) {
    return BASE_ID + seq * 4194304L + ((long) seq * seq) % 4096;
  }

  @Test
  void identicalTablesAreEqual() throws Exception {
    createOrders();
    fixture.copyToLake("orders", "updated_at");

    VerifyResult result = fixture.verify("orders", CUTOFF, "7d", VerifyFixture.smallSlices());

    VerifyReport report = result.report();
    assertThat(report.status()).isEqualTo("equal");
    assertThat(result.slicesNarrowed()).as("the one lake scan digests every slice right").isZero();
    assertThat(result.work().get("lake row groups key only"))
        .as("files whose times all lie before the window are read by their key column alone")
        .isPositive();
    assertThat(report.rowsCompared()).isEqualTo(3000);
    assertThat(report.slices()).isEqualTo(8);
    assertThat(report.snapshot().reason())
        .isEqualTo("current snapshot: no snapshot records floe.source-watermark-ms");
    assertThat(report.toJson())
        .contains("\"missing_in_lake\": {\"count\": 0, \"keys\": []}")
        .contains("\"status\": \"equal\"");
  }

  @Test
  void injectedDifferencesAreFoundExactly() throws Exception {
    createOrders();
    fixture.copyToLake("orders", "updated_at");
    String orders = "`" + fixture.database + "`.orders";
    fixture.server.execute(
        // missing in the lake: two rows MySQL has from before the cutoff
        "INSERT INTO "
            + orders
            + " VALUES (5, 1, 1.00, 'new', '2025-12-30 00:00:00'),"
            + " ("
            + (id(3000) + 7)
            + ", 1, 1.00, 'new', '2020-01-01 00:00:00')",
        // extra in the lake: two rows deleted from MySQL
        "DELETE FROM " + orders + " WHERE id IN (" + id(10) + ", " + id(2500) + ")",
        // different: in the window, one column each; and a NULL that became ''
        "UPDATE " + orders + " SET amount = amount + 0.01 WHERE id = " + id(20),
        "UPDATE " + orders + " SET note = '' WHERE id = " + id(25),
        // outside the window: content is not compared, only the key
        "UPDATE " + orders + " SET note = 'old change' WHERE id = " + id(2000),
        // changed after the cutoff: not compared, not a difference
        "UPDATE " + orders + " SET note = 'late', updated_at = '2026-01-02' WHERE id = " + id(30),
        "INSERT INTO " + orders + " VALUES (7, 1, 1.00, 'late', '2026-01-05 00:00:00')");

    VerifyOptions options = VerifyFixture.smallSlices(new Bisection(50));
    VerifyReport report = fixture.verify("orders", CUTOFF, "7d", options).report();

    assertThat(report.status()).isEqualTo("different");
    assertThat(keys(report, DifferenceKind.MISSING_IN_LAKE))
        .containsExactly(RowKey.of("5"), RowKey.of(String.valueOf(id(3000) + 7)));
    assertThat(keys(report, DifferenceKind.EXTRA_IN_LAKE))
        .containsExactly(RowKey.of(String.valueOf(id(10))), RowKey.of(String.valueOf(id(2500))));
    assertThat(report.found(DifferenceKind.DIFFERENT).keys())
        .containsExactly(
            Map.entry(RowKey.of(String.valueOf(id(20))), List.of("amount")),
            Map.entry(RowKey.of(String.valueOf(id(25))), List.of("note")));
    assertThat(report.found(DifferenceKind.MISSING_IN_LAKE).count()).isEqualTo(2);
    assertThat(report.found(DifferenceKind.EXTRA_IN_LAKE).count()).isEqualTo(2);
    assertThat(report.found(DifferenceKind.DIFFERENT).count()).isEqualTo(2);
    assertThat(report.changedAfterCutoff()).isEqualTo(1);
    assertThat(report.toJson())
        .contains("\"missing_in_lake\": {\"count\": 2, \"keys\": [5, " + (id(3000) + 7) + "]}")
        .contains(
            "\"rows\": [{\"key\": "
                + id(20)
                + ", \"columns\": [\"amount\"]}, {\"key\": "
                + id(25)
                + ", \"columns\": [\"note\"]}]");
  }

  @Test
  void compositeKeysAreSlicedAndReportedAsObjects() throws Exception {
    String table = "`" + fixture.database + "`.lines";
    fixture.server.execute(
        "CREATE TABLE "
            + table
            + " (tenant INT, line BIGINT, qty INT, updated_at TIMESTAMP(3)"
            + " NULL, PRIMARY KEY (tenant, line))",
        "INSERT INTO "
            + table
            + " SELECT seq % 7, seq * 1000003, seq, TIMESTAMP('2025-12-31"
            + " 12:00:00') - INTERVAL seq MINUTE FROM `"
            + fixture.database
            + "`.seq_1_to_2000");
    fixture.copyToLake("lines", "updated_at");
    assertThat(fixture.verify("lines", CUTOFF, "1d", VerifyFixture.smallSlices()).report().equal())
        .isTrue();

    fixture.server.execute(
        "UPDATE " + table + " SET qty = 0 WHERE tenant = 3 AND line = " + 10L * 1000003,
        "DELETE FROM " + table + " WHERE tenant = 4 AND line = " + 1999L * 1000003,
        "INSERT INTO " + table + " VALUES (9, 1, 1, NULL)");
    VerifyReport report =
        fixture.verify("lines", CUTOFF, "1d", VerifyFixture.smallSlices()).report();

    assertThat(report.toJson())
        .contains("\"missing_in_lake\": {\"count\": 1, \"keys\": [{\"tenant\": 9, \"line\": 1}]}")
        .contains(
            "\"extra_in_lake\": {\"count\": 1, \"keys\": [{\"tenant\": 4, \"line\": "
                + 1999L * 1000003
                + "}]}")
        .contains("\"different\": {\"count\": 1, \"keys\": [{\"tenant\": 3, \"line\": 10000030}]");
  }

  /**
   * Whole key ranges lost from the lake and rows the lake kept after MySQL deleted them, next to
   * single changes: the part digests split at the lake's keys, the ranges where MySQL holds many
   * keys the lake lacks are split at MySQL's keys, and every key is counted exactly once.
   */
  @Test
  void lostAndDeletedRangesAreCountedExactly() throws Exception {
    createOrders();
    fixture.copyToLake("orders", "updated_at");
    String orders = "`" + fixture.database + "`.orders";
    List<RowKey> lost = new ArrayList<>();
    StringBuilder values = new StringBuilder();
    // 450 keys between two lake keys, none of them in the lake: more than a slice of 400
    for (int i = 1; i <= 450; i++) {
      long id = id(1500) + i;
      lost.add(RowKey.of(String.valueOf(id)));
      values.append(i == 1 ? "" : ", ").append("(").append(id).append(", 1, 1.00, 'lost', ");
      values.append(i % 2 == 0 ? "'2025-12-30 00:00:00')" : "'2020-01-01 00:00:00')");
    }
    List<RowKey> deleted = new ArrayList<>();
    for (int seq = 2001; seq <= 2300; seq++) {
      deleted.add(RowKey.of(String.valueOf(id(seq))));
    }
    fixture.server.execute(
        "INSERT INTO " + orders + " VALUES " + values,
        "DELETE FROM " + orders + " WHERE id >= " + id(2001) + " AND id <= " + id(2300),
        "UPDATE "
            + orders
            + " SET customer = customer + 1 WHERE id IN ("
            + id(3)
            + ", "
            + id(40)
            + ", "
            + id(41)
            + ")");

    VerifyOptions options = VerifyFixture.smallSlices(new Bisection(50));
    VerifyResult result = fixture.verify("orders", CUTOFF, "7d", options);
    VerifyReport report = result.report();

    assertThat(report.found(DifferenceKind.MISSING_IN_LAKE).count()).isEqualTo(450);
    assertThat(keys(report, DifferenceKind.MISSING_IN_LAKE)).containsExactlyElementsOf(lost);
    assertThat(report.found(DifferenceKind.EXTRA_IN_LAKE).count()).isEqualTo(300);
    assertThat(keys(report, DifferenceKind.EXTRA_IN_LAKE)).containsExactlyElementsOf(deleted);
    assertThat(report.found(DifferenceKind.DIFFERENT).keys())
        .containsExactly(
            Map.entry(RowKey.of(String.valueOf(id(3))), List.of("customer")),
            Map.entry(RowKey.of(String.valueOf(id(40))), List.of("customer")),
            Map.entry(RowKey.of(String.valueOf(id(41))), List.of("customer")));
    assertThat(report.rowsCompared()).isEqualTo(3000 + 450 - 300);
    assertThat(result.work())
        .as("mismatching slices are split by part digests, one query per level")
        .containsKey("parts");
  }

  /**
   * Lake files with equality deletes on the key and with position deletes, as a sync writes them,
   * are read column by column with their deletes applied, in the slice digests and in the (key,
   * hash) index of a mismatching slice: rows the lake deleted are missing from it, and a changed
   * row next to them is still found with its column.
   */
  @Test
  void rowsDeletedInTheLakeAreMissingAndChangesNextToThemAreFound() throws Exception {
    createOrders();
    TableIdentifier target = fixture.copyToLake("orders", "updated_at");
    Table lake = fixture.catalog.catalog().loadTable(target);
    Schema keySchema = lake.schema().select("id");
    GenericAppenderFactory appenders =
        new GenericAppenderFactory(
            lake,
            lake.schema(),
            lake.spec(),
            lake.properties(),
            new int[] {lake.schema().findField("id").fieldId()},
            keySchema,
            null);
    EqualityDeleteWriter<Record> equalityDeletes =
        appenders.newEqDeleteWriter(newFile(lake, "equality-deletes"), FileFormat.PARQUET, null);
    try (equalityDeletes) {
      // one row in the window, one compared by key only
      for (int seq : new int[] {100, 2600}) {
        equalityDeletes.write(GenericRecord.create(keySchema).copy("id", id(seq)));
      }
    }
    // the copy writes 700 rows a file in key order: seq 1500 is row 99 of the file holding it
    String holder = null;
    try (CloseableIterable<FileScanTask> tasks = lake.newScan().includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        Types.NestedField id = lake.schema().findField("id");
        long lowest =
            Conversions.fromByteBuffer(id.type(), task.file().lowerBounds().get(id.fieldId()));
        long highest =
            Conversions.fromByteBuffer(id.type(), task.file().upperBounds().get(id.fieldId()));
        if (lowest <= id(1500) && id(1500) <= highest) {
          holder = task.file().location();
        }
      }
    }
    PositionDeleteWriter<Record> positionDeletes =
        appenders.newPosDeleteWriter(newFile(lake, "position-deletes"), FileFormat.PARQUET, null);
    try (positionDeletes) {
      positionDeletes.write(PositionDelete.<Record>create().set(holder, (1500 - 1) % 700, null));
    }
    lake.newRowDelta()
        .addDeletes(equalityDeletes.toDeleteFile())
        .addDeletes(positionDeletes.toDeleteFile())
        .commit();
    fixture.server.execute(
        "UPDATE `"
            + fixture.database
            + "`.orders SET customer = customer + 1 WHERE id = "
            + id(101));

    VerifyOptions options = VerifyFixture.smallSlices(new Bisection(50));
    VerifyResult result = fixture.verify("orders", CUTOFF, "7d", options);
    VerifyReport report = result.report();

    assertThat(keys(report, DifferenceKind.MISSING_IN_LAKE))
        .containsExactly(
            RowKey.of(String.valueOf(id(100))),
            RowKey.of(String.valueOf(id(1500))),
            RowKey.of(String.valueOf(id(2600))));
    assertThat(report.found(DifferenceKind.EXTRA_IN_LAKE).count()).isZero();
    assertThat(report.found(DifferenceKind.DIFFERENT).keys())
        .containsExactly(Map.entry(RowKey.of(String.valueOf(id(101))), List.of("customer")));
    assertThat(result.work())
        .as("files with the deletes a sync writes are read column by column")
        .containsEntry("lake files generic", 0L);
    assertThat(result.work().get("lake files columnar")).isPositive();
  }

  private static EncryptedOutputFile newFile(Table lake, String name) {
    return EncryptedFiles.plainAsEncryptedOutput(
        lake.io().newOutputFile(lake.locationProvider().newDataLocation(name + ".parquet")));
  }

  @Test
  void unreachableSourceAndUnknownTableAreExplained() throws Exception {
    createOrders();
    fixture.copyToLake("orders", "updated_at");

    assertThatThrownBy(() -> fixture.verify("nope", CUTOFF, "7d", VerifyOptions.defaults()))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Table "
                + fixture.database
                + ".nope does not exist on the source (or the user may"
                + " not see it). Check --table DATABASE.TABLE.");
  }

  private static List<RowKey> keys(VerifyReport report, DifferenceKind kind) {
    return report.found(kind).keys().stream().map(Map.Entry::getKey).toList();
  }

  static ErrorCategory category(Throwable error) {
    return ((FloeException) error).category();
  }
}
