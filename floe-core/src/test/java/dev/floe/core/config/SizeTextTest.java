package dev.floe.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SizeTextTest {

  @Test
  void bytesAndPowersOf1024InEitherCase() {
    assertThat(SizeText.parse("65536")).contains(65536L);
    assertThat(SizeText.parse("512k")).contains(512L << 10);
    assertThat(SizeText.parse(" 512M ")).contains(512L << 20);
    assertThat(SizeText.parse("2g")).contains(2L << 30);
  }

  @Test
  void everythingElseIsNotASize() {
    for (String text : List.of("", "m", "1.5g", "-1g", "2gb", "2 g", "2t", "99999999999g")) {
      assertThat(SizeText.parse(text)).as(text).isEmpty();
    }
  }

  @Test
  void formatIsTheShortestExactSpelling() {
    assertThat(SizeText.format(2L << 30)).isEqualTo("2g");
    assertThat(SizeText.format(1536L << 20)).isEqualTo("1536m");
    assertThat(SizeText.format(512L << 10)).isEqualTo("512k");
    assertThat(SizeText.format(1000)).isEqualTo("1000");
    assertThat(SizeText.format(0)).isEqualTo("0");
    for (long bytes : new long[] {2L << 30, 1536L << 20, 512L << 10, 1000}) {
      assertThat(SizeText.parse(SizeText.format(bytes))).contains(bytes);
    }
  }
}
