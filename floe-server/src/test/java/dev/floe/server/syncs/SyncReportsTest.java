package dev.floe.server.syncs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.server.MutableClock;
import dev.floe.server.store.JdbcKeeperStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SyncReportsTest {

  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path directory;

  private JdbcKeeperStore store() {
    return JdbcKeeperStore.open(Optional.empty(), Optional.empty(), Optional.empty(), directory);
  }

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  private static final String RUNNING =
      "{\"source\": \"mysql://floe@db:3306\", \"state\": \"running\","
          + " \"started_at\": \"2026-10-31T23:00:00Z\", \"lag_ms\": 1200, \"error\": null,"
          + " \"tables\": [{\"source_table\": \"shop.orders\", \"table\": \"shop.orders\","
          + " \"phase\": \"binlog\", \"rows\": 42, \"lag_ms\": 1200},"
          + " {\"source_table\": \"shop.items\", \"table\": \"shop.items\","
          + " \"phase\": \"snapshot\", \"rows\": 7, \"lag_ms\": null}]}";

  @Test
  void aReportIsShownStaleAfterThirtySecondsAndSurvivesARestart() throws Exception {
    MutableClock clock = new MutableClock(T0);
    try (JdbcKeeperStore store = store()) {
      SyncReports syncs = new SyncReports(store, clock);
      syncs.report("orders-sync", json(RUNNING));

      Map<String, Object> view = syncs.view(syncs.get("orders-sync").orElseThrow());
      assertThat(view)
          .containsEntry("name", "orders-sync")
          .containsEntry("source", "mysql://floe@db:3306")
          .containsEntry("state", "running")
          .containsEntry("reported_at", "2026-11-01T00:00:00Z")
          .containsEntry("stale", false)
          .containsEntry("started_at", "2026-10-31T23:00:00Z")
          .containsEntry("lag_ms", 1200L);
      assertThat(view.get("tables"))
          .isEqualTo(
              List.of(
                  tableView("shop.orders", "binlog", 42, 1200L),
                  tableView("shop.items", "snapshot", 7, null)));

      clock.advance(SyncReports.STALE_AFTER);
      assertThat(syncs.stale(syncs.get("orders-sync").orElseThrow())).isFalse();
      clock.advance(Duration.ofSeconds(1));
      assertThat(syncs.stale(syncs.get("orders-sync").orElseThrow())).isTrue();
    }
    try (JdbcKeeperStore reopened = store()) {
      SyncReports syncs = new SyncReports(reopened, new MutableClock(T0));
      assertThat(syncs.all())
          .singleElement()
          .satisfies(
              report -> {
                assertThat(report.name()).isEqualTo("orders-sync");
                assertThat(report.reportedAt()).isEqualTo(T0);
                assertThat(report.lagMs()).contains(1200L);
                assertThat(report.tables()).hasSize(2);
              });
    }
  }

  private static Map<String, Object> tableView(String name, String phase, long rows, Long lag) {
    Map<String, Object> table = new java.util.LinkedHashMap<>();
    table.put("source_table", name);
    table.put("table", name);
    table.put("phase", phase);
    table.put("rows", rows);
    table.put("lag_ms", lag);
    table.put("stopped", null);
    return table;
  }

  @Test
  void badReportsAreRefusedNamingTheField() throws Exception {
    try (JdbcKeeperStore store = store()) {
      SyncReports syncs = new SyncReports(store, new MutableClock(T0));
      assertThatThrownBy(() -> syncs.report("orders", json("{\"state\": \"running\"}")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("source is required (a string)");
      assertThatThrownBy(
              () -> syncs.report("orders", json("{\"source\": \"s\", \"state\": \"sleeping\"}")))
          .hasMessage("state must be one of running, stopped, failed; got 'sleeping'");
      assertThatThrownBy(
              () ->
                  syncs.report(
                      "orders",
                      json("{\"source\": \"s\", \"state\": \"running\", \"lag_ms\": -1}")))
          .hasMessage("lag_ms must be a whole number >= 0; got -1");
      assertThatThrownBy(
              () ->
                  syncs.report(
                      "orders",
                      json(
                          "{\"source\": \"s\", \"state\": \"running\", \"tables\": [{\"source_table\":"
                              + " \"a.b\", \"table\": \"a.b\", \"phase\": \"copying\"}]}")))
          .hasMessage("tables[0].phase must be one of snapshot, binlog; got 'copying'");
      assertThatThrownBy(
              () ->
                  syncs.report(
                      "orders",
                      json(
                          "{\"source\": \"s\", \"state\": \"running\", \"started_at\":"
                              + " \"yesterday\"}")))
          .hasMessage(
              "started_at must be an ISO-8601 instant such as 2026-11-01T00:30:00Z; got"
                  + " 'yesterday'");
      assertThatThrownBy(
              () -> syncs.report("a/b", json("{\"source\": \"s\", \"state\": \"running\"}")))
          .hasMessage(
              "the sync name 'a/b' may only hold letters, digits, '.', '_' and '-' (1 to 255 of"
                  + " them), as floe sync --name does");
      assertThat(syncs.all()).isEmpty();
      assertThat(store.syncReports()).isEmpty();
    }
  }
}
