package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CaptureListTest {

  @Test
  void capturesEveryTableOfTheDatabasesAPatternCanMatch() {
    assertThat(CaptureList.capture("shop\\..*")).isEqualTo("shop\\..*");
    assertThat(CaptureList.capture("shop\\.(?!outside_).*")).isEqualTo("shop\\..*");
    assertThat(CaptureList.capture("order_db_\\d+\\.orders_\\d+")).isEqualTo("order_db_\\d+\\..*");
    assertThat(CaptureList.capture("(shop|crm)\\.items")).isEqualTo("(shop|crm)\\..*");
    assertThat(CaptureList.capture("shop\\.items|crm\\.users")).isEqualTo("(?:shop|crm)\\..*");
    // a dot in a group or character class is not where the database ends
    assertThat(CaptureList.capture("[a\\.b|c]x\\.t")).isEqualTo("[a\\.b|c]x\\..*");
    assertThat(CaptureList.capture("[]|]x\\.t")).isEqualTo("[]|]x\\..*");
    // an optional dot may be missing: the next one splits
    assertThat(CaptureList.capture("a\\.?b\\.t")).isEqualTo("a\\.?b\\..*");
  }

  @Test
  void capturesAPatternAsGivenWhenItsDatabasePartCannotBeToldApart() {
    for (String pattern :
        List.of(".*", "shop.items", "shop\\.a|.*x", "\\Qshop.items\\E", "(?x) shop \\. items")) {
      assertThat(CaptureList.capture(pattern)).as(pattern).isEqualTo(pattern);
    }
  }

  @Test
  void theCaptureMatchesEveryNameThePatternMatchesAndTheRestOfItsDatabases() {
    List<String> names =
        List.of(
            "shop.items",
            "shop.outside_x",
            "shop.a.b",
            "crm.users",
            "crm.items",
            "order_db_1.orders_7",
            "order_db_1.tmp",
            "order_db_x.orders_1",
            "other.items");
    for (String include :
        List.of(
            "shop\\.(?!outside_).*",
            "shop\\.items|crm\\.users",
            "(shop|crm)\\.items",
            "order_db_\\d+\\.orders_\\d+")) {
      Pattern pattern = Pattern.compile(include);
      Pattern capture = Pattern.compile(CaptureList.capture(include));
      for (String name : names) {
        if (pattern.matcher(name).matches()) {
          assertThat(capture.matcher(name).matches()).as(include + " on " + name).isTrue();
        }
      }
      assertThat(capture.matcher("other.items").matches()).as(include).isFalse();
    }
    assertThat(
            Pattern.compile(CaptureList.capture("shop\\.(?!outside_).*"))
                .matcher("shop.outside_x")
                .matches())
        .isTrue();
    assertThat(
            Pattern.compile(CaptureList.capture("order_db_\\d+\\.orders_\\d+"))
                .matcher("order_db_1.tmp")
                .matches())
        .isTrue();
  }

  @Test
  void joinsDistinctCapturesWithCommasEscapedInsideThem() {
    assertThat(CaptureList.of(List.of("shop\\.a", "shop\\.b", "db_\\d{1,2}\\.x")))
        .isEqualTo("shop\\..*,db_\\d{1\\,2}\\..*");
  }
}
