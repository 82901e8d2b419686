package dev.floe.iceberg.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExternalSorterTest {

  @TempDir Path spill;

  @Test
  void sortsInMemoryWhenEverythingFits() {
    try (ExternalSorter sorter = new ExternalSorter(spill, 1 << 20)) {
      sorter.add(key(3), 0, 0);
      sorter.add(key(1), 5, 1);
      sorter.add(key(1), 2, 9);

      assertThat(drain(sorter)).containsExactly("1/2/9", "1/5/1", "3/0/0");
      assertThat(sorter.spilledRuns()).isZero();
    }
  }

  @Test
  void spillsRunsAndMergesThemInPassesWhenTheBufferIsSmall() throws Exception {
    Random random = new Random(7);
    List<String> expected = new ArrayList<>();
    try (ExternalSorter sorter = new ExternalSorter(spill, 4096)) {
      for (int i = 0; i < 6_000; i++) {
        int value = random.nextInt(1_000_000);
        sorter.add(key(value), i, 0);
        expected.add(String.format("%07d/%05d", value, i));
      }
      List<String> sorted = new ArrayList<>();
      try (ExternalSorter.CloseableIterator entries = sorter.sorted()) {
        while (entries.hasNext()) {
          ExternalSorter.Entry entry = entries.next();
          sorted.add(String.format("%07d/%05d", ByteBuffer.wrap(entry.key()).getInt(), entry.a()));
        }
      }

      assertThat(sorter.spilledRuns()).isGreaterThan(ExternalSorter.MAX_MERGE_WIDTH);
      expected.sort(null);
      assertThat(sorted).isEqualTo(expected);
    }
    try (Stream<Path> left = Files.list(spill)) {
      assertThat(left).isEmpty();
    }
  }

  private static byte[] key(int value) {
    return ByteBuffer.allocate(4).putInt(value).array();
  }

  private static List<String> drain(ExternalSorter sorter) {
    List<String> out = new ArrayList<>();
    try (ExternalSorter.CloseableIterator entries = sorter.sorted()) {
      entries.forEachRemaining(
          entry ->
              out.add(ByteBuffer.wrap(entry.key()).getInt() + "/" + entry.a() + "/" + entry.b()));
    }
    return out;
  }
}
