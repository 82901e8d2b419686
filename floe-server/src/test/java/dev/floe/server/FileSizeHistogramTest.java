package dev.floe.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FileSizeHistogramTest {

  @Test
  void filesFallIntoPowerOfTwoBucketsWithEmptyOnesBetween() {
    FileSizeHistogram histogram = new FileSizeHistogram();
    histogram.add(1024);
    histogram.add(2047);
    histogram.add(8192);
    histogram.add(0);

    assertThat(histogram.buckets())
        .startsWith(new FileSizeHistogram.Bucket(0, 2, 1, 0))
        .contains(
            new FileSizeHistogram.Bucket(1024, 2048, 2, 3071),
            new FileSizeHistogram.Bucket(2048, 4096, 0, 0),
            new FileSizeHistogram.Bucket(4096, 8192, 0, 0))
        .endsWith(new FileSizeHistogram.Bucket(8192, 16384, 1, 8192))
        .hasSize(14);
  }

  @Test
  void noFilesNoBuckets() {
    assertThat(new FileSizeHistogram().buckets()).isEmpty();
  }
}
