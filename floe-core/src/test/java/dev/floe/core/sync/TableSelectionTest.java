package dev.floe.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableSelectionTest {

  @Test
  void includeAndExcludeMatchWholeNames() {
    TableSelection selection =
        TableSelection.of(List.of("shop\\..*"), List.of("shop\\.tmp_.*"), Optional.empty());

    assertThat(selection.matches("shop", "orders")).isTrue();
    assertThat(selection.matches("shop", "tmp_1")).isFalse();
    assertThat(selection.matches("shopping", "orders")).isFalse();
    assertThat(selection.namespaceFor("shop")).isEqualTo("shop");
  }

  @Test
  void targetNamespaceOverridesTheDatabase() {
    assertThat(TableSelection.of(List.of(".*"), List.of(), Optional.of("ods")).namespaceFor("shop"))
        .isEqualTo("ods");
  }

  @Test
  void badPatternIsExplained() {
    assertThatThrownBy(() -> TableSelection.of(List.of("shop.(*"), List.of(), Optional.empty()))
        .hasMessageStartingWith("--tables 'shop.(*' is not a valid regular expression (");
  }
}
