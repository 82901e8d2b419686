package dev.floe.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.sync.SchemaEvolution.AddColumn;
import dev.floe.core.sync.SchemaEvolution.MoveColumn;
import dev.floe.core.sync.SchemaEvolution.Plan;
import dev.floe.core.sync.SchemaEvolution.WidenColumn;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class RouteSchemaTest {

  private static final String ROUTE = "db_\\d+\\.orders_\\d+ -> ods.orders";
  private static final SourceColumn ID =
      new SourceColumn("id", "bigint", "bigint(20)", false, 19, 0);
  private static final SourceColumn QTY = new SourceColumn("qty", "int", "int(11)", false, 10, 0);
  private static final SourceColumn WIDE_QTY =
      new SourceColumn("QTY", "bigint", "bigint(20)", true, 19, 0);
  private static final SourceColumn NOTE =
      new SourceColumn("note", "varchar", "varchar(20)", true, 0, 0);
  private static final SourceColumn TEXT_QTY =
      new SourceColumn("qty", "varchar", "varchar(10)", true, 0, 0);

  private static SourceTable shard(String name, SourceColumn... columns) {
    return new SourceTable(
        name.split("\\.")[0], name.split("\\.")[1], List.of(columns), List.of("id"));
  }

  private static List<String> columns(Schema schema) {
    return schema.columns().stream()
        .map(
            field ->
                field.name()
                    + " "
                    + field.type()
                    + (field.isRequired() ? " required" : "")
                    + (schema.identifierFieldIds().contains(field.fieldId()) ? " key" : ""))
        .toList();
  }

  @Test
  void unionKeepsEveryColumnOptionalButTheKeyAndAddsTheSourceColumnsToTheKey() {
    Schema schema =
        RouteSchema.union(
            ROUTE,
            List.of(shard("db_0.orders_0", ID, QTY), shard("db_1.orders_1", ID, NOTE, WIDE_QTY)));

    assertThat(columns(schema))
        .containsExactly(
            "id long required key",
            "note string",
            "qty long",
            "_source_db string required key",
            "_source_table string required key");
    assertThat(RouteSchema.isRouted(schema)).isTrue();
    assertThat(RouteSchema.isRouted(TypeMapping.icebergSchema(shard("db_0.orders_0", ID, QTY))))
        .isFalse();
  }

  @Test
  void unionRefusesDifferentKeysAndIrreconcilableTypes() {
    SourceTable otherKey =
        new SourceTable("db_1", "orders_1", List.of(ID, QTY), List.of("id", "qty"));
    assertThatThrownBy(
            () -> RouteSchema.union(ROUTE, List.of(shard("db_0.orders_0", ID, QTY), otherKey)))
        .hasMessage(
            "Route 'db_\\d+\\.orders_\\d+ -> ods.orders' merges tables with different primary"
                + " keys: db_0.orders_0 (id) and db_1.orders_1 (id, qty). Route only tables with"
                + " the same primary key into one Iceberg table.");
    assertThatThrownBy(
            () ->
                RouteSchema.union(
                    ROUTE,
                    List.of(shard("db_0.orders_0", ID, QTY), shard("db_1.orders_1", ID, TEXT_QTY))))
        .hasMessage(
            "Route 'db_\\d+\\.orders_\\d+ -> ods.orders': column qty is Iceberg int in"
                + " db_0.orders_0 but varchar(10) (Iceberg string) in db_1.orders_1, and Iceberg"
                + " can only widen int to long, float to double and a decimal's precision. Make"
                + " the column's type the same in every routed table, or route those tables to"
                + " different Iceberg tables.");
  }

  @Test
  void aRoutedTableAddsAndWidensButNeverDropsOrRenames() {
    Schema current = RouteSchema.union(ROUTE, List.of(shard("db_0.orders_0", ID, QTY, NOTE)));

    // db_0.orders_0 dropped note and renamed qty to amount, widened on the way
    SourceColumn amount = new SourceColumn("amount", "bigint", "bigint(20)", true, 19, 0);
    Plan plan = SchemaEvolution.planRouted(current, shard("db_0.orders_0", ID, amount));
    assertThat(plan.refusal()).isEmpty();
    assertThat(plan.steps())
        .containsExactly(
            new AddColumn("amount", Types.LongType.get()),
            new MoveColumn("amount", Optional.of("id")));

    // another table has qty as BIGINT: the route's column is widened; an INT one changes nothing
    assertThat(SchemaEvolution.planRouted(current, shard("db_1.orders_1", ID, WIDE_QTY)).steps())
        .containsExactly(new WidenColumn("qty", Types.LongType.get()));
    assertThat(SchemaEvolution.planRouted(current, shard("db_1.orders_1", ID, QTY)).changes())
        .isFalse();
  }

  @Test
  void aRoutedTableRefusesWhatTheRouteCannotHold() {
    Schema current = RouteSchema.union(ROUTE, List.of(shard("db_0.orders_0", ID, QTY)));

    assertThat(SchemaEvolution.planRouted(current, shard("db_1.orders_1", ID, TEXT_QTY)).refusal())
        .contains(
            "it changes column qty of db_1.orders_1 to varchar(10), which maps to Iceberg"
                + " string; the route's column is int and Iceberg can only widen int to long,"
                + " float to double and a decimal's precision");
    assertThat(
            SchemaEvolution.planRouted(
                    current,
                    new SourceTable("db_1", "orders_1", List.of(ID, QTY), List.of("id", "qty")))
                .refusal())
        .contains(
            "it changes the primary key of db_1.orders_1 to (id, qty), and the route's rows are"
                + " identified by (id)");
  }

  @Test
  void routesParseAndExplainMistakes() {
    TableRoute route = TableRoute.parse("--route", " db_\\d+\\.orders_\\d+  ->  ods.orders ");
    assertThat(route.matches("db_7.orders_12")).isTrue();
    assertThat(route.matches("db_7.orders")).isFalse();
    assertThat(route.target()).isEqualTo("ods.orders");
    assertThat(route.text()).isEqualTo("db_\\d+\\.orders_\\d+ -> ods.orders");

    assertThatThrownBy(() -> TableRoute.parse("sync.routes", "db_\\d+\\.orders -> orders"))
        .hasMessage(
            "sync.routes 'db_\\d+\\.orders -> orders' is not REGEX -> NAMESPACE.TABLE (a regular"
                + " expression over database.table, an arrow, and the Iceberg table of letters,"
                + " digits and _), e.g. sync.routes 'order_db_\\d+\\.orders_\\d+ -> ods.orders'.");
    assertThatThrownBy(() -> TableRoute.parse("--route", "db_(\\d+ -> ods.orders"))
        .hasMessageStartingWith(
            "--route 'db_(\\d+ -> ods.orders': 'db_(\\d+' is not a valid regular expression (");
  }

  @Test
  void theFirstMatchingRouteWins() {
    TableSelection selection =
        TableSelection.of(List.of("db_\\d+\\..*"), List.of(), Optional.empty())
            .withRoutes(
                "--route", List.of("db_0\\.orders_\\d+ -> ods.first", "db_\\d+\\..* -> ods.all"));
    assertThat(selection.routeOf("db_0.orders_3").orElseThrow().target()).isEqualTo("ods.first");
    assertThat(selection.routeOf("db_1.orders_3").orElseThrow().target()).isEqualTo("ods.all");
    assertThat(selection.routeOf("shop.items")).isEmpty();
  }
}
