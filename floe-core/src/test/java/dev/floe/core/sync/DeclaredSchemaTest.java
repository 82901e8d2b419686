package dev.floe.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class DeclaredSchemaTest {

  private static final String HOW =
      ". Write the columns as NAME TYPE [NOT NULL], comma-separated, e.g. 'id BIGINT NOT NULL, ts"
          + " TIMESTAMP, name STRING, amount DECIMAL(10,2)'.";
  private static final String ACCEPTED =
      "use one of BOOLEAN, INT (INTEGER), BIGINT (LONG), FLOAT, DOUBLE, DECIMAL(P,S), STRING"
          + " (VARCHAR, TEXT), DATE, TIME, TIMESTAMP (without zone), TIMESTAMPTZ (with zone, UTC),"
          + " optionally followed by NOT NULL";

  @Test
  void readsEveryTypeTheKeyAndNotNull() {
    Schema schema =
        DeclaredSchema.parse(
            "--schema",
            "id BIGINT NOT NULL, ts TIMESTAMP, name STRING, amount DECIMAL(10,2), at timestamptz,"
                + " day date, t TIME, n int null, ok boolean, f float, d double, v varchar(64),"
                + " region string",
            List.of("id", "REGION"));
    assertThat(schema.asStruct())
        .isEqualTo(
            new Schema(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
                    Types.NestedField.optional(3, "name", Types.StringType.get()),
                    Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
                    Types.NestedField.optional(5, "at", Types.TimestampType.withZone()),
                    Types.NestedField.optional(6, "day", Types.DateType.get()),
                    Types.NestedField.optional(7, "t", Types.TimeType.get()),
                    Types.NestedField.optional(8, "n", Types.IntegerType.get()),
                    Types.NestedField.optional(9, "ok", Types.BooleanType.get()),
                    Types.NestedField.optional(10, "f", Types.FloatType.get()),
                    Types.NestedField.optional(11, "d", Types.DoubleType.get()),
                    Types.NestedField.optional(12, "v", Types.StringType.get()),
                    Types.NestedField.required(13, "region", Types.StringType.get()))
                .asStruct());
    assertThat(schema.identifierFieldNames()).containsExactlyInAnyOrder("id", "region");
    assertThat(
            DeclaredSchema.parse("sync.kafka.schema", "id BIGINT", List.of()).identifierFieldIds())
        .isEmpty();
  }

  @Test
  void namesTheInputTheColumnAndTheFix() {
    assertBad(
        "ts TIMESTAMP, x FOO",
        List.of(),
        "sync.kafka.schema 'ts TIMESTAMP, x FOO': column x has the type FOO: " + ACCEPTED + HOW);
    assertBad(
        "id BIGINT, name",
        List.of(),
        "sync.kafka.schema 'id BIGINT, name': column name has no type: " + ACCEPTED + HOW);
    assertBad(
        "id BIGINT, , name STRING",
        List.of(),
        "sync.kafka.schema 'id BIGINT, , name STRING': a column is empty (two commas, or one at"
            + " the end)"
            + HOW);
    assertBad("  ", List.of(), "sync.kafka.schema '': it declares no column" + HOW);
    assertBad(
        "amount DECIMAL",
        List.of(),
        "sync.kafka.schema 'amount DECIMAL': column amount is DECIMAL without its precision and"
            + " scale: write DECIMAL(P,S), e.g. DECIMAL(10,2)"
            + HOW);
    assertBad(
        "amount DECIMAL(40,2)",
        List.of(),
        "sync.kafka.schema 'amount DECIMAL(40,2)': column amount is DECIMAL(40,2): the precision"
            + " must be 1 to 38 and the scale at most the precision"
            + HOW);
    assertBad(
        "id BIGINT, ID STRING",
        List.of(),
        "sync.kafka.schema 'id BIGINT, ID STRING': column ID is declared twice" + HOW);
    assertBad(
        "ts TIMESTAMP WITH TIME ZONE",
        List.of(),
        "sync.kafka.schema 'ts TIMESTAMP WITH TIME ZONE': column ts has the type 'TIMESTAMP WITH"
            + " TIME ZONE': "
            + ACCEPTED
            + HOW);
    assertBad(
        "ts TIMESTAMP(3)",
        List.of(),
        "sync.kafka.schema 'ts TIMESTAMP(3)': column ts is TIMESTAMP with a length or precision,"
            + " which it takes none"
            + HOW);
    assertBad(
        "1d BIGINT",
        List.of(),
        "sync.kafka.schema '1d BIGINT': '1d BIGINT' is not a column: write NAME TYPE, the name of"
            + " letters, digits and _"
            + HOW);
    assertBad(
        "name STRING",
        List.of("id"),
        "sync.kafka.schema 'name STRING': the key column id (--key id) is not in it: declare it,"
            + " e.g. 'id BIGINT NOT NULL, ...'"
            + HOW);
    assertBad(
        "score DOUBLE",
        List.of("score"),
        "sync.kafka.schema 'score DOUBLE': the key column score is DOUBLE, which Iceberg refuses"
            + " as an identifier field: declare it BIGINT, DECIMAL(P,S) or STRING"
            + HOW);
  }

  @Test
  void aDifferenceIsADeclaredColumnMissingOrOfAnotherTypeOrNullability() {
    Schema table =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(3, "extra", Types.StringType.get()));
    assertThat(DeclaredSchema.difference(parse("ID BIGINT NOT NULL, amount DECIMAL(12,2)"), table))
        .isEqualTo(Optional.empty());
    assertThat(DeclaredSchema.difference(parse("id BIGINT NOT NULL, amount DECIMAL(10,2)"), table))
        .contains("column amount is DECIMAL(10,2) in the schema but DECIMAL(12,2) in the table");
    assertThat(DeclaredSchema.difference(parse("id BIGINT NOT NULL, ts TIMESTAMP"), table))
        .contains("the table has no column ts");
    assertThat(DeclaredSchema.difference(parse("id BIGINT"), table))
        .contains("column id is nullable in the schema but NOT NULL in the table");
  }

  private static Schema parse(String text) {
    return DeclaredSchema.parse("--schema", text, List.of());
  }

  private static void assertBad(String text, List<String> key, String message) {
    assertThatThrownBy(() -> DeclaredSchema.parse("sync.kafka.schema", text, key))
        .isInstanceOf(FloeException.class)
        .hasMessage(message);
  }
}
