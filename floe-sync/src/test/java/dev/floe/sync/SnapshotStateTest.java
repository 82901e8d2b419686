package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotStateTest {

  private static final SourceTable ITEMS =
      new SourceTable(
          "shop",
          "items",
          List.of(
              new SourceColumn("id", "int", "int(11)", false, 10, 0),
              new SourceColumn("name", "varchar", "varchar(20)", true, 0, 0)),
          List.of("id"));

  private static final SourceTable ORDERS =
      new SourceTable(
          "shop",
          "orders",
          List.of(new SourceColumn("id", "bigint", "bigint(20)", false, 19, 0)),
          List.of("id"));

  @TempDir Path directory;

  @Test
  void roundTripsWithTheDefinitionsTheCopyBeganWith() {
    SnapshotState begun =
        SnapshotState.begin(new BinlogPosition("mysql-bin.000003", 4), List.of(), List.of(ITEMS))
            .complete(new BinlogPosition("mysql-bin.000003", 900));

    begun.save(StateDirectory.local(directory));
    SnapshotState loaded = SnapshotState.load(StateDirectory.local(directory)).orElseThrow();

    assertThat(loaded).isEqualTo(begun);
    assertThat(loaded.definitions()).containsOnlyKeys("shop.items");
  }

  @Test
  void aSelectedTableAlteredOrDroppedSinceTheCopyBeganIsNamedAndANewOrUnselectedOneIsNot() {
    SnapshotState state =
        SnapshotState.begin(
            new BinlogPosition("mysql-bin.000001", 4), List.of(), List.of(ITEMS, ORDERS));
    SourceTable added =
        new SourceTable(
            "shop",
            "items",
            List.of(
                ITEMS.columns().get(0),
                ITEMS.columns().get(1),
                new SourceColumn("price", "decimal", "decimal(10,2)", true, 10, 2)),
            List.of("id"));
    SourceTable created = new SourceTable("shop", "later", ORDERS.columns(), List.of("id"));

    assertThat(state.alteredSinceBegin(List.of(ITEMS, ORDERS, created), name -> true)).isEmpty();
    assertThat(state.alteredSinceBegin(List.of(added, ORDERS), name -> true))
        .containsExactly("shop.items");
    assertThat(state.alteredSinceBegin(List.of(ITEMS), name -> true))
        .as("dropped")
        .containsExactly("shop.orders");
    assertThat(state.alteredSinceBegin(List.of(ITEMS), name -> !name.equals("shop.orders")))
        .as("left out of a narrowed selection")
        .isEmpty();
  }

  @Test
  void readsTheFormatOneFileOfTheFloeBeforeWithoutDefinitions() throws Exception {
    // as Floe wrote it before format 2: no format key, no definitions
    Files.writeString(
        directory.resolve(SnapshotState.FILE_NAME),
        "#floe sync state; do not edit\n"
            + "sync-id=6d1f3b0e-5a43-4c4e-9d8e-0c2f5a1b7e11\n"
            + "start-file=mysql-bin.000002\n"
            + "start-position=1234\n"
            + "tables=\n"
            + "recopy.shop.items.start=mysql-bin.000002\\:5000\n"
            + "end-file=mysql-bin.000002\n"
            + "end-position=4321\n",
        StandardCharsets.UTF_8);

    SnapshotState loaded = SnapshotState.load(StateDirectory.local(directory)).orElseThrow();

    assertThat(loaded.syncId()).isEqualTo("6d1f3b0e-5a43-4c4e-9d8e-0c2f5a1b7e11");
    assertThat(loaded.start()).isEqualTo(new BinlogPosition("mysql-bin.000002", 1234));
    assertThat(loaded.end()).contains(new BinlogPosition("mysql-bin.000002", 4321));
    assertThat(loaded.pendingRecopies()).containsExactly("shop.items");
    assertThat(loaded.definitions()).isEmpty();
    assertThat(loaded.alteredSinceBegin(List.of(), name -> true))
        .as("nothing recorded, nothing compared")
        .isEmpty();
    assertThat(SnapshotState.load(StateDirectory.local(directory.resolve("none"))))
        .isEqualTo(Optional.empty());
  }

  @Test
  void aNewerFormatIsRefusedNamingTheFile() throws Exception {
    Files.writeString(
        directory.resolve(SnapshotState.FILE_NAME),
        "format=3\nsync-id=x\nstart-file=mysql-bin.000001\nstart-position=4\n",
        StandardCharsets.UTF_8);

    assertThatThrownBy(() -> SnapshotState.load(StateDirectory.local(directory)))
        .isInstanceOf(FloeException.class)
        .hasMessageContaining(directory.resolve(SnapshotState.FILE_NAME).toString())
        .hasMessageContaining("format 3")
        .hasMessageContaining("formats 1 to 2");
  }
}
