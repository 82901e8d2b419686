package dev.floe.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TypeMappingTest {

  private static final SourceTable TABLE = new SourceTable("shop", "t", List.of(), List.of());

  @ParameterizedTest(name = "{1} -> {4}")
  @CsvSource(
      delimiter = '|',
      value = {
        "tinyint|tinyint(4)|0|0|int",
        "tinyint|tinyint(1)|0|0|int",
        "tinyint|tinyint(3) unsigned|0|0|int",
        "smallint|smallint(5) unsigned|0|0|int",
        "mediumint|mediumint(8) unsigned|0|0|int",
        "int|int(11)|0|0|int",
        "int|int(10) unsigned|0|0|long",
        "bigint|bigint(20)|0|0|long",
        "bigint|bigint(20) unsigned|0|0|decimal(20, 0)",
        "decimal|decimal(10,2)|10|2|decimal(10, 2)",
        "decimal|decimal(65,30)|65|30|string",
        "float|float|0|0|float",
        "double|double|0|0|double",
        "bit|bit(1)|1|0|boolean",
        "bit|bit(12)|12|0|binary",
        "varchar|varchar(191)|0|0|string",
        "longtext|longtext|0|0|string",
        "enum|enum('a','b')|0|0|string",
        "set|set('a','b')|0|0|string",
        "json|json|0|0|string",
        "varbinary|varbinary(16)|0|0|binary",
        "blob|blob|0|0|binary",
        "date|date|0|0|date",
        "time|time(6)|0|6|time",
        "datetime|datetime(3)|0|3|timestamp",
        "timestamp|timestamp(6)|0|6|timestamptz",
        "year|year(4)|0|0|int"
      })
  void mapsEveryMySqlType(
      String dataType, String columnType, int precision, int scale, String iceberg) {
    SourceColumn column = new SourceColumn("c", dataType, columnType, true, precision, scale);

    assertThat(TypeMapping.icebergType(TABLE, column).toString()).isEqualTo(iceberg);
  }

  @Test
  void unsupportedTypeNamesTableColumnAndWayOut() {
    SourceColumn column = new SourceColumn("location", "point", "point", true, 0, 0);

    assertThatThrownBy(() -> TypeMapping.icebergType(TABLE, column))
        .hasMessage(
            "Table shop.t has column location of type point, which Floe cannot sync. Exclude the"
                + " table with --exclude 'shop\\.t', or change the column's type.");
  }

  @Test
  void schemaKeepsOrderAndMakesThePrimaryKeyTheIdentifier() {
    SourceTable table =
        new SourceTable(
            "shop",
            "order_items",
            List.of(
                new SourceColumn("order_id", "bigint", "bigint(20)", false, 0, 0),
                new SourceColumn("line_no", "smallint", "smallint(5) unsigned", false, 0, 0),
                new SourceColumn("note", "text", "text", true, 0, 0)),
            List.of("order_id", "line_no"));

    Schema schema = TypeMapping.icebergSchema(table);

    assertThat(schema.columns())
        .containsExactly(
            Types.NestedField.required(1, "order_id", Types.LongType.get()),
            Types.NestedField.required(2, "line_no", Types.IntegerType.get()),
            Types.NestedField.optional(3, "note", Types.StringType.get()));
    assertThat(schema.identifierFieldNames()).containsExactlyInAnyOrder("order_id", "line_no");
  }

  @Test
  void tableWithoutPrimaryKeyIsRefused() {
    SourceTable table =
        new SourceTable(
            "shop", "log", List.of(new SourceColumn("msg", "text", "text", true, 0, 0)), List.of());

    assertThatThrownBy(() -> TypeMapping.icebergSchema(table))
        .hasMessageStartingWith(
            "Table shop.log has no primary key, so updates and deletes cannot be matched");
  }
}
