package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.state.FileTableStateStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FloeContextTest {

  @TempDir Path directory;

  @Test
  void theCatalogIsOpenedOnceOnFirstUseAndClosedWithTheContext() {
    Clock clock = Clock.fixed(Instant.parse("2026-11-29T09:00:00Z"), ZoneOffset.UTC);
    FileTableStateStore store = new FileTableStateStore(directory);
    FloeContext context = new FloeContext(FloeSettings.defaults(directory), clock, store);

    FloeCatalog catalog = context.catalog();

    assertThat(context.catalog()).isSameAs(catalog);
    assertThat(context.clock()).isSameAs(clock);
    assertThat(context.stateStore()).isSameAs(store);
    assertThat(context.key("shop.orders")).isEqualTo(new TableKey("floe", "shop.orders"));
    assertThat(context.spillDirectory()).isEqualTo(directory.resolve("tmp/optimize"));
    context.close();
    assertThatThrownBy(context::catalog)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the context is closed");
    context.close();
  }

  @Test
  void aContextNeverAskedForTheCatalogOpensNone() {
    FloeContext context =
        new FloeContext(
            FloeSettings.defaults(directory),
            Clock.systemUTC(),
            new FileTableStateStore(directory));

    context.close();

    assertThat(directory.resolve("catalog.db")).doesNotExist();
  }
}
