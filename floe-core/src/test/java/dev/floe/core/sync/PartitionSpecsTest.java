package dev.floe.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class PartitionSpecsTest {

  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "country", Types.StringType.get()),
          Types.NestedField.optional(3, "created_at", Types.TimestampType.withoutZone()));

  @Test
  void readsEveryTransform() {
    PartitionSpec spec =
        PartitionSpecs.parse(
            "shop.orders", "day(created_at), bucket(16, id), truncate(2, country)", SCHEMA);
    assertThat(spec.fields())
        .extracting(field -> field.transform().toString())
        .containsExactly("day", "bucket[16]", "truncate[2]");
    assertThat(PartitionSpecs.parse("shop.orders", "country", SCHEMA).fields())
        .extracting(field -> field.transform().toString())
        .containsExactly("identity");
    assertThat(PartitionSpecs.parse("shop.orders", "month(created_at)", SCHEMA).fields())
        .extracting(field -> field.transform().toString())
        .containsExactly("month");
  }

  @Test
  void namesTheTableTheTextAndTheProblem() {
    assertThatThrownBy(() -> PartitionSpecs.parse("shop.orders", "day(created)", SCHEMA))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "sync.partitions for shop.orders is 'day(created)': the table has no column created."
                + " Write a comma-separated list such as 'day(created_at), bucket(16, id)'.");
    assertThatThrownBy(() -> PartitionSpecs.parse("shop.orders", "week(created_at)", SCHEMA))
        .hasMessageContaining("unknown transform week");
    assertThatThrownBy(() -> PartitionSpecs.parse("shop.orders", "bucket(id)", SCHEMA))
        .hasMessageContaining("bucket needs a width: bucket(N, column)");
    assertThatThrownBy(() -> PartitionSpecs.parse("shop.orders", "day(id)", SCHEMA))
        .hasMessage(
            "sync.partitions for shop.orders is 'day(id)': day(id) needs a date or timestamp"
                + " column, but id is long (identity, bucket or truncate partition any column)."
                + " Write a comma-separated list such as 'day(created_at), bucket(16, id)'.");
    assertThatThrownBy(() -> PartitionSpecs.parse("shop.orders", "id,,country", SCHEMA))
        .hasMessageContaining("a partition field is empty");
  }
}
