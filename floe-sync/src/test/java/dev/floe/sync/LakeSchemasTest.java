package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import dev.floe.core.sync.SyncProperties;
import dev.floe.core.sync.TypeMapping;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DDL applied to a real Iceberg table on local disk, as the binlog reader meets it. */
class LakeSchemasTest {

  private static final SourceColumn ID = new SourceColumn("id", "bigint", "bigint", false, 19, 0);
  private static final SourceColumn A = new SourceColumn("a", "int", "int", true, 10, 0);
  private static final SourceColumn B = new SourceColumn("b", "int", "int", true, 10, 0);
  private static final SourceColumn C = new SourceColumn("c", "int", "int", true, 10, 0);
  private static final SyncTargets TARGETS =
      new SyncTargets(List.of("shop\\..*"), List.of(), "", List.of());

  @TempDir Path directory;

  private HadoopCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = new HadoopCatalog(new Configuration(), directory.toUri().toString());
  }

  private static SourceTable items(SourceColumn... columns) {
    return new SourceTable("shop", "items", List.of(columns), List.of("id"));
  }

  private static DdlEvent alter(long position, String ddl, SourceColumn... after) {
    return new DdlEvent(
        "shop",
        "items",
        DdlEvent.Kind.ALTER,
        ddl,
        new BinlogPosition("mysql-bin.000001", position),
        Optional.of(items(after)));
  }

  private Table create(PartitionSpec.Builder spec) {
    return catalog.createTable(
        TableIdentifier.of("shop", "items"),
        TypeMapping.icebergSchema(items(ID, A)),
        spec.build(),
        Map.of("format-version", "2"));
  }

  @Test
  void aReplayedDdlIsSkippedAndReplayedRowsUseTheNamesOfTheirTime() {
    create(PartitionSpec.builderFor(TypeMapping.icebergSchema(items(ID, A))));
    LakeSchemas schemas = new LakeSchemas(catalog, TARGETS);
    schemas.apply(alter(100, "ALTER TABLE items ADD c INT", ID, A, C));
    schemas.apply(alter(200, "ALTER TABLE items DROP c", ID, A));
    schemas.apply(alter(300, "ALTER TABLE items RENAME COLUMN a TO b", ID, B));

    // After a restore the reader starts over from before all three.
    LakeSchemas restored = new LakeSchemas(catalog, TARGETS);
    restored.apply(alter(100, "ALTER TABLE items ADD c INT", ID, A, C));
    LakeSchemas.LakeTable table = restored.table("shop.items").orElseThrow();
    assertThat(table.schema.columns())
        .extracting(column -> column.name())
        .containsExactly("id", "b");
    assertThat(table.sourceNames(new BinlogPosition("mysql-bin.000001", 50)))
        .containsExactly("id", "a");
    assertThat(table.sourceNames(new BinlogPosition("mysql-bin.000001", 250)))
        .containsExactly("id", "a");
    assertThat(table.sourceNames(new BinlogPosition("mysql-bin.000001", 350)))
        .containsExactly("id", "b");
    assertThat(table.table.properties())
        .containsEntry(SyncProperties.SCHEMA_POSITION, "mysql-bin.000001:300");
  }

  @Test
  void aChangeIcebergRefusesStopsTheTableWithTheReason() {
    create(PartitionSpec.builderFor(TypeMapping.icebergSchema(items(ID, A))).identity("a"));
    LakeSchemas schemas = new LakeSchemas(catalog, TARGETS);
    schemas.apply(alter(100, "ALTER TABLE items DROP a", ID));

    Table table = catalog.loadTable(TableIdentifier.of("shop", "items"));
    assertThat(table.schema().findField("a")).isNotNull();
    assertThat(table.properties().get(SyncProperties.STOPPED))
        .startsWith(
            "Floe stopped syncing shop.items at binlog mysql-bin.000001:100 after `ALTER TABLE"
                + " items DROP a`: Iceberg cannot represent it: Iceberg refused it (")
        .endsWith(
            "). The other tables go on. To sync it again, stop floe sync and start it with"
                + " --resnapshot shop.items: that table is copied again into a new Iceberg table,"
                + " the others resume where they stopped.");
    assertThat(
            schemas
                .table("shop.items")
                .orElseThrow()
                .stoppedBefore(new BinlogPosition("mysql-bin.000001", 101)))
        .isTrue();
  }
}
