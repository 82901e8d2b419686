package dev.floe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.state.TableKey;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableQueryTest {

  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

  private static final TableQuery.Row ORDERS =
      row("floe", "shop.orders", TableStatus.IDLE, 95, Optional.of(NOW.minusSeconds(5)));
  private static final TableQuery.Row USERS =
      row("floe", "shop.users", TableStatus.PENDING, 40, Optional.of(NOW.minusSeconds(600)));
  private static final TableQuery.Row EVENTS =
      row("floe", "logs.events", TableStatus.QUARANTINED, 10, Optional.empty());
  private static final TableQuery.Row OTHER_ORDERS =
      row("other", "shop.orders", TableStatus.PAUSED, 70, Optional.empty());
  private static final List<TableQuery.Row> ALL = List.of(USERS, OTHER_ORDERS, EVENTS, ORDERS);

  @Test
  void withoutParametersEveryTableByCatalogAndName() {
    TableQuery.Page page = TableQuery.all().apply(ALL);

    assertThat(page.total()).isEqualTo(4);
    assertThat(page.rows()).containsExactly(EVENTS, ORDERS, USERS, OTHER_ORDERS);
  }

  @Test
  void filtersCombine() {
    assertThat(query(Map.of("state", "idle,pending")).apply(ALL).rows())
        .containsExactly(ORDERS, USERS);
    assertThat(query(Map.of("namespace", "shop", "catalog", "floe")).apply(ALL).rows())
        .containsExactly(ORDERS, USERS);
    assertThat(query(Map.of("q", "ORD")).apply(ALL).rows()).containsExactly(ORDERS, OTHER_ORDERS);
    assertThat(query(Map.of("health_below", "70")).apply(ALL).rows())
        .containsExactly(EVENTS, USERS);
  }

  @Test
  void sortsByAFieldEitherWayWithMissingValuesLast() {
    assertThat(query(Map.of("sort", "health")).apply(ALL).rows())
        .containsExactly(EVENTS, USERS, OTHER_ORDERS, ORDERS);
    assertThat(query(Map.of("sort", "-health")).apply(ALL).rows())
        .containsExactly(ORDERS, OTHER_ORDERS, USERS, EVENTS);
    assertThat(query(Map.of("sort", "freshness_ms")).apply(ALL).rows())
        .containsExactly(ORDERS, USERS, EVENTS, OTHER_ORDERS);
    assertThat(query(Map.of("sort", "-freshness_ms")).apply(ALL).rows())
        .containsExactly(USERS, ORDERS, EVENTS, OTHER_ORDERS);
  }

  @Test
  void pagesTenThousandTablesWithTheTotalBeforePaging() {
    List<TableQuery.Row> many = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      many.add(
          row("floe", String.format("ns.t%05d", i), TableStatus.IDLE, i % 101, Optional.empty()));
    }

    TableQuery.Page page =
        query(Map.of("sort", "table", "offset", "9990", "limit", "50")).apply(many);
    TableQuery.Page unhealthy = query(Map.of("health_below", "50", "limit", "10")).apply(many);

    assertThat(page.total()).isEqualTo(10_000);
    assertThat(page.rows()).hasSize(10);
    assertThat(page.rows().get(0).table().key().table()).isEqualTo("ns.t09990");
    assertThat(unhealthy.rows()).hasSize(10);
    assertThat(unhealthy.total())
        .isEqualTo(many.stream().filter(r -> r.table().health() < 50).count());
  }

  @Test
  void freshnessIsNowMinusTheWatermark() {
    assertThat(USERS.freshness(NOW)).contains(Duration.ofMinutes(10));
    assertThat(EVENTS.freshness(NOW)).isEmpty();
  }

  @Test
  void badParametersAreNamed() {
    assertThatThrownBy(() -> query(Map.of("sort", "size")))
        .hasMessage(
            "sort must be one of backlog_bytes, catalog, consecutive_failures, data_files,"
                + " delete_files, freshness_ms, health, last_optimized_at, small_files,"
                + " source_watermark_at, state, table (prefix - for descending), got 'size'");
    assertThatThrownBy(() -> query(Map.of("state", "idle,sleeping")))
        .hasMessage(
            "state must be one or more of idle, pending, running, backoff, quarantined, paused,"
                + " disabled, failed (comma-separated), got 'sleeping'");
    assertThatThrownBy(() -> query(Map.of("limit", "0")))
        .hasMessage("limit must be a number from 1 to 10000, got '0'");
    assertThatThrownBy(() -> query(Map.of("health_below", "x")))
        .hasMessage("health_below must be a number from 0 to 101, got 'x'");
    assertThatThrownBy(() -> query(Map.of("offset", "-1")))
        .hasMessage("offset must be a number from 0 to 2147483647, got '-1'");
  }

  private static TableQuery query(Map<String, String> parameters) {
    return TableQuery.parse(parameters);
  }

  private static TableQuery.Row row(
      String catalog, String table, TableStatus status, int health, Optional<Instant> watermark) {
    TableRecord record =
        TableRecord.discovered(new TableKey(catalog, table))
            .withScan("m", health, 10, 5, 1, health * 100L)
            .withStatus(status);
    return new TableQuery.Row(record, watermark);
  }
}
