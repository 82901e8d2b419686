package dev.floe.core.optimize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptimizeFailuresFormatTest {

  private static final Instant LAST = Instant.ofEpochMilli(1764406800000L);

  @Test
  void writesAVersionedFileAndReadsItBack() {
    OptimizeFailures failures =
        new OptimizeFailures(
            Map.of(
                new PartitionKey(1, "day=2026-11-29/city=New York"),
                new OptimizeFailures.Failure(2, LAST),
                PartitionKey.unpartitioned(0),
                new OptimizeFailures.Failure(1, LAST.plusSeconds(1))));

    String text = OptimizeFailuresFormat.write("shop.orders", failures);

    assertThat(text)
        .isEqualTo(
            "floe-optimize-failures 1\n"
                + "table shop.orders\n"
                + "partition 0 1 1764406801000 \n"
                + "partition 1 2 1764406800000 day=2026-11-29/city=New York\n");
    assertThat(OptimizeFailuresFormat.parse(text, "f")).isEqualTo(failures);
    assertThat(
            OptimizeFailuresFormat.parse(
                OptimizeFailuresFormat.write("shop.orders", OptimizeFailures.none()), "f"))
        .isEqualTo(OptimizeFailures.none());
  }

  @Test
  void readsTheUnversionedPropertiesFileOfFloe01() {
    // As OptimizeFailureStore wrote it with java.util.Properties.store.
    String text =
        "#floe optimize failures of shop.orders\n"
            + "#Sat Nov 29 09:00:00 UTC 2026\n"
            + "0|day\\=2026-11-29=3,1764406800000\n"
            + "0|=1,1764406801000\n";

    assertThat(OptimizeFailuresFormat.parse(text, "f"))
        .isEqualTo(
            new OptimizeFailures(
                Map.of(
                    new PartitionKey(0, "day=2026-11-29"),
                    new OptimizeFailures.Failure(3, LAST),
                    PartitionKey.unpartitioned(0),
                    new OptimizeFailures.Failure(1, LAST.plusSeconds(1)))));
  }

  @Test
  void damagedOrNewerFilesNameTheFileAndTheFix() {
    assertThatThrownBy(
            () ->
                OptimizeFailuresFormat.parse(
                    "floe-optimize-failures 1\npartition 0 x 1 day=1\n", "/s/o.failures"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "The optimize state file /s/o.failures is damaged at line 2: '0 x 1 day=1' is not a"
                + " valid partition line. Delete it to forget the table's optimize failures"
                + " (partitions that failed are then planned again on the next run).")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.INTERNAL);
    assertThatThrownBy(() -> OptimizeFailuresFormat.parse("floe-optimize-failures 2\n", "f"))
        .hasMessageStartingWith(
            "The optimize state file f is damaged at line 1: it is format 'floe-optimize-failures"
                + " 2', written by a newer Floe; this one reads 'floe-optimize-failures 1'.");
    assertThatThrownBy(() -> OptimizeFailuresFormat.parse("0|day=1=three,4\n", "f"))
        .hasMessageStartingWith(
            "The optimize state file f is damaged in entry '0|day': the value is not two"
                + " numbers.");
  }
}
