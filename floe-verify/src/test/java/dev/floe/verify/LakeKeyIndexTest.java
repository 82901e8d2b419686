package dev.floe.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.verify.ColumnKind;
import dev.floe.core.verify.KeyRange;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.SliceDigest;
import dev.floe.core.verify.VerifyColumn;
import dev.floe.core.verify.VerifyReport;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LakeKeyIndexTest {

  @Test
  void digestsSubRangesInNumericKeyOrder() {
    VerifyColumn id = new VerifyColumn("id", ColumnKind.INTEGER, "bigint", 0);
    LakeKeyIndex index =
        new LakeKeyIndex(
            List.of(RowKey.of("9"), RowKey.of("10"), RowKey.of("100")),
            new long[] {1, 2, 4},
            VerifyReport.keyOrder(List.of(id)));

    assertThat(index.digest(KeyRange.all())).isEqualTo(SliceDigest.EMPTY.plus(1).plus(2).plus(4));
    assertThat(index.digest(new KeyRange(Optional.of(RowKey.of("10")), Optional.empty())))
        .isEqualTo(SliceDigest.EMPTY.plus(2).plus(4));
    assertThat(index.digest(new KeyRange(Optional.empty(), Optional.of(RowKey.of("100")))))
        .isEqualTo(SliceDigest.EMPTY.plus(1).plus(2));
    assertThat(
            index.digest(new KeyRange(Optional.of(RowKey.of("11")), Optional.of(RowKey.of("99")))))
        .isEqualTo(SliceDigest.EMPTY);
  }
}
