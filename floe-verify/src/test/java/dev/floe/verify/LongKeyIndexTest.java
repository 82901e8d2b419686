package dev.floe.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.verify.KeyRange;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.SliceDigest;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongKeyIndexTest {

  @Test
  void sortsPairsByKeyAndKeepsEachHashWithItsKey() {
    Random random = new Random(7);
    LongKeyIndex.Builder builder = new LongKeyIndex.Builder();
    long[] keys = new long[10_000];
    for (int i = 0; i < keys.length; i++) {
      // snowflake-like keys, negative ones and runs of nearby keys, in random order
      keys[i] =
          i % 3 == 0 ? random.nextLong() : 1_420_000_000_000_000_000L + random.nextInt(50_000);
      builder.add(keys[i], hashOf(keys[i]));
    }
    LongKeyIndex index = builder.build();

    long[] sorted = keys.clone();
    Arrays.sort(sorted);
    assertThat(index.size()).isEqualTo(keys.length);
    for (int i = 0; i < sorted.length; i++) {
      assertThat(index.key(i)).isEqualTo(sorted[i]);
      assertThat(index.hash(i)).isEqualTo(hashOf(sorted[i]));
    }
  }

  @Test
  void digestsRangesOfMySqlKeysIncludingUnsignedOnesBeyondALong() {
    LongKeyIndex.Builder builder = new LongKeyIndex.Builder();
    builder.add(100, 4);
    builder.add(-5, 1);
    builder.add(9, 2);
    LongKeyIndex index = builder.build();

    assertThat(index.digest(KeyRange.all())).isEqualTo(SliceDigest.EMPTY.plus(1).plus(2).plus(4));
    assertThat(index.digest(range("9", "100"))).isEqualTo(SliceDigest.EMPTY.plus(2));
    assertThat(index.digest(range("10", "99"))).isEqualTo(SliceDigest.EMPTY);
    assertThat(index.digest(range("-5", "18446744073709551615")))
        .isEqualTo(SliceDigest.EMPTY.plus(1).plus(2).plus(4));
    assertThat(index.digest(range("18446744073709551000", "18446744073709551615")))
        .isEqualTo(SliceDigest.EMPTY);
    assertThat(index.firstAtOrAfter(10)).isEqualTo(2);
    assertThat(index.firstAtOrAfter(101)).isEqualTo(3);
    assertThat(LongKeyIndex.longKey(RowKey.of("18446744073709551615"))).isEmpty();
    assertThat(LongKeyIndex.longKey(RowKey.of("-7"))).contains(-7L);
  }

  private static KeyRange range(String lower, String upper) {
    return new KeyRange(Optional.of(RowKey.of(lower)), Optional.of(RowKey.of(upper)));
  }

  private static long hashOf(long key) {
    return Long.hashCode(key * 31) & 0xFFFFFFFFL;
  }
}
