package dev.floe.core.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import org.junit.jupiter.api.Test;

class TableKeyTest {

  @Test
  void aTableIsNamespaceDotName() {
    assertThat(new TableKey("floe", "shop.orders").table()).isEqualTo("shop.orders");
    assertThat(new TableKey("floe", "a.b.orders").table()).isEqualTo("a.b.orders");
    assertThat(new TableKey("floe", "shop.orders"))
        .isNotEqualTo(new TableKey("other", "shop.orders"));
  }

  @Test
  void malformedNamesAreBadInput() {
    for (String name : new String[] {"orders", ".orders", "shop.", "shop..orders", ""}) {
      assertThatThrownBy(() -> new TableKey("floe", name))
          .as(name)
          .isInstanceOf(FloeException.class)
          .hasMessage(
              "Invalid table name '" + name + "': write it as NAMESPACE.TABLE, e.g. shop.orders.")
          .extracting(e -> ((FloeException) e).category())
          .isEqualTo(ErrorCategory.BAD_INPUT);
    }
    assertThatThrownBy(() -> new TableKey(" ", "shop.orders"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("catalog is blank");
  }
}
