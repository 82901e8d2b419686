package dev.floe.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.sync.SchemaEvolution.AddColumn;
import dev.floe.core.sync.SchemaEvolution.DropColumn;
import dev.floe.core.sync.SchemaEvolution.MakeOptional;
import dev.floe.core.sync.SchemaEvolution.MoveColumn;
import dev.floe.core.sync.SchemaEvolution.Plan;
import dev.floe.core.sync.SchemaEvolution.RenameColumn;
import dev.floe.core.sync.SchemaEvolution.WidenColumn;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class SchemaEvolutionTest {

  private static final SourceColumn ID =
      new SourceColumn("id", "bigint", "bigint(20)", false, 19, 0);
  private static final SourceColumn NAME =
      new SourceColumn("name", "varchar", "varchar(20)", true, 0, 0);
  private static final SourceColumn QTY = new SourceColumn("qty", "int", "int(11)", false, 10, 0);

  /** The Iceberg table as Floe creates it for (id, name, qty). */
  private static final Schema CURRENT = TypeMapping.icebergSchema(table(ID, NAME, QTY));

  private static SourceTable table(SourceColumn... columns) {
    return new SourceTable("shop", "items", List.of(columns), List.of("id"));
  }

  private static Plan plan(String ddl, SourceColumn... after) {
    Plan plan = SchemaEvolution.plan(CURRENT, table(after), ddl);
    assertThat(plan.refusal()).as("refusal").isEmpty();
    return plan;
  }

  @Test
  void addsAColumnAtTheEndWithoutMoves() {
    SourceColumn note = new SourceColumn("note", "text", "text", false, 0, 0);
    assertThat(plan("ALTER TABLE items ADD COLUMN note TEXT NOT NULL", ID, NAME, QTY, note).steps())
        .containsExactly(new AddColumn("note", Types.StringType.get()));
  }

  @Test
  void addsAColumnInTheMiddleAndMovesItThere() {
    SourceColumn note = new SourceColumn("note", "text", "text", true, 0, 0);
    assertThat(plan("ALTER TABLE items ADD note TEXT AFTER id", ID, note, NAME, QTY).steps())
        .containsExactly(
            new AddColumn("note", Types.StringType.get()),
            new MoveColumn("id", Optional.empty()),
            new MoveColumn("note", Optional.of("id")),
            new MoveColumn("name", Optional.of("note")),
            new MoveColumn("qty", Optional.of("name")));
  }

  @Test
  void dropsAColumn() {
    assertThat(plan("ALTER TABLE items DROP COLUMN name", ID, QTY).steps())
        .containsExactly(new DropColumn("name"));
  }

  @Test
  void renamesWhatTheDdlRenamesAndDropsWhatItDoesNot() {
    SourceColumn title = new SourceColumn("title", "varchar", "varchar(20)", true, 0, 0);
    assertThat(plan("ALTER TABLE items RENAME COLUMN `name` TO `title`", ID, title, QTY).steps())
        .containsExactly(new RenameColumn("name", "title"));
    assertThat(plan("ALTER TABLE items CHANGE name title VARCHAR(20)", ID, title, QTY).steps())
        .containsExactly(new RenameColumn("name", "title"));
    // The same columns after a DDL that does not rename: a drop and an add, never a guess.
    assertThat(
            plan("ALTER TABLE items DROP name, ADD title VARCHAR(20) AFTER id", ID, title, QTY)
                .steps())
        .containsExactly(
            new DropColumn("name"),
            new AddColumn("title", Types.StringType.get()),
            new MoveColumn("id", Optional.empty()),
            new MoveColumn("title", Optional.of("id")),
            new MoveColumn("qty", Optional.of("title")));
  }

  @Test
  void widensWhatIcebergCanPromoteAndIgnoresLengths() {
    SourceColumn bigQty = new SourceColumn("qty", "bigint", "bigint(20)", false, 19, 0);
    SourceColumn longName = new SourceColumn("name", "varchar", "varchar(200)", true, 0, 0);
    assertThat(
            plan(
                    "ALTER TABLE items MODIFY qty BIGINT NOT NULL, MODIFY name VARCHAR(200)",
                    ID,
                    longName,
                    bigQty)
                .steps())
        .containsExactly(new WidenColumn("qty", Types.LongType.get()));
  }

  @Test
  void widensDecimalPrecisionAndFloat() {
    SourceColumn price = new SourceColumn("price", "decimal", "decimal(10,2)", true, 10, 2);
    SourceColumn ratio = new SourceColumn("ratio", "float", "float", true, 12, 0);
    Schema current = TypeMapping.icebergSchema(table(ID, price, ratio));
    SourceColumn widerPrice = new SourceColumn("price", "decimal", "decimal(18,2)", true, 18, 2);
    SourceColumn doubleRatio = new SourceColumn("ratio", "double", "double", true, 22, 0);
    Plan plan =
        SchemaEvolution.plan(
            current,
            table(ID, widerPrice, doubleRatio),
            "ALTER TABLE items MODIFY price DECIMAL(18,2), MODIFY ratio DOUBLE");
    assertThat(plan.steps())
        .containsExactly(
            new WidenColumn("price", Types.DecimalType.of(18, 2)),
            new WidenColumn("ratio", Types.DoubleType.get()));
  }

  @Test
  void makesAColumnOptionalWhenNotNullIsDropped() {
    SourceColumn nullableQty = new SourceColumn("qty", "int", "int(11)", true, 10, 0);
    assertThat(plan("ALTER TABLE items MODIFY qty INT NULL", ID, NAME, nullableQty).steps())
        .containsExactly(new MakeOptional("qty"));
  }

  @Test
  void aDdlThatChangesNothingIcebergHoldsPlansNothing() {
    Plan plan = plan("ALTER TABLE items ADD INDEX by_name (name)", ID, NAME, QTY);
    assertThat(plan.changes()).isFalse();
  }

  @Test
  void refusesANarrowingOrIncompatibleTypeChange() {
    SourceColumn textQty = new SourceColumn("qty", "varchar", "varchar(10)", false, 0, 0);
    assertThat(
            SchemaEvolution.plan(
                    CURRENT, table(ID, NAME, textQty), "ALTER TABLE items MODIFY qty VARCHAR(10)")
                .refusal())
        .hasValue(
            "it changes column qty to varchar(10), which maps to Iceberg string; Iceberg cannot"
                + " change int to that (only int to long, float to double and a wider decimal"
                + " precision)");
  }

  @Test
  void refusesAPrimaryKeyChange() {
    SourceTable after =
        new SourceTable("shop", "items", List.of(ID, NAME, QTY), List.of("id", "qty"));
    assertThat(
            SchemaEvolution.plan(
                    CURRENT, after, "ALTER TABLE items DROP PRIMARY KEY, ADD PRIMARY KEY (id, qty)")
                .refusal())
        .hasValue(
            "it changes the primary key from (id) to (id, qty), and the Iceberg table's rows are"
                + " identified by the old key");
  }

  @Test
  void refusesAnUnsupportedType() {
    SourceColumn shape = new SourceColumn("shape", "geometry", "geometry", true, 0, 0);
    assertThat(
            SchemaEvolution.plan(
                    CURRENT, table(ID, NAME, QTY, shape), "ALTER TABLE items ADD shape GEOMETRY")
                .refusal())
        .hasValue("column shape becomes geometry, which Floe cannot sync");
  }

  @Test
  void readsRenamesFromQuotedAndPlainNames() {
    assertThat(
            SchemaEvolution.renames(
                "ALTER TABLE t RENAME COLUMN a TO b, CHANGE COLUMN `c d` `e` INT, CHANGE f f BIGINT"))
        .containsOnly(java.util.Map.entry("a", "b"), java.util.Map.entry("c d", "e"));
  }
}
