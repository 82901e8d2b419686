package dev.floe.server.http;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.server.KeeperService;
import dev.floe.server.TableInspector;
import dev.floe.server.store.HealthSample;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import dev.floe.server.workers.WorkerGroups;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The read-only views the dashboard pages are built from (docs/keeper.md, "API contract"): {@code
 * GET /api/v1/overview} and a table's {@code /history}, {@code /snapshots} and {@code /files}. Each
 * method answers a JSON body; a bad parameter is an {@link IllegalArgumentException} naming it.
 */
final class ViewRoutes {

  /** The events the overview shows. */
  static final int OVERVIEW_EVENTS = 20;

  /** The health bands of the overview, as {@code [name, lowest health]} from the top. */
  private static final List<Map.Entry<String, Integer>> HEALTH_BANDS =
      List.of(
          Map.entry("80-100", 80),
          Map.entry("60-79", 60),
          Map.entry("40-59", 40),
          Map.entry("0-39", 0));

  private final KeeperService keeper;

  ViewRoutes(KeeperService keeper) {
    this.keeper = requireNonNull(keeper, "keeper is null");
  }

  Map<String, Object> overview() {
    Map<String, Long> byState = new LinkedHashMap<>();
    for (TableStatus status : TableStatus.values()) {
      byState.put(status.apiName(), 0L);
    }
    Map<String, Long> byHealth = new LinkedHashMap<>();
    for (String band : List.of("0-39", "40-59", "60-79", "80-100")) {
      byHealth.put(band, 0L); // lowest first, as the contract lists them
    }
    long backlog = 0;
    for (TableRecord table : keeper.registry().all()) {
      byState.merge(table.status().apiName(), 1L, Long::sum);
      for (Map.Entry<String, Integer> band : HEALTH_BANDS) {
        if (table.health() >= band.getValue()) {
          byHealth.merge(band.getKey(), 1L, Long::sum);
          break;
        }
      }
      backlog += table.backlogBytes();
    }
    List<Map<String, Object>> groups = new ArrayList<>();
    for (WorkerGroups.Group group : keeper.groups().all()) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("name", group.name());
      item.put("kind", group.kind());
      item.put("live", keeper.workerRegistry().live(group.name()));
      item.put("target", group.target());
      groups.add(item);
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("tables_by_state", byState);
    answer.put("tables_by_health", byHealth);
    answer.put("backlog_bytes", backlog);
    answer.put("groups", groups);
    answer.put("alerts_firing", keeper.store().alerts().firing().size());
    answer.put(
        "events", events(keeper.store().events(java.util.Optional.empty(), OVERVIEW_EVENTS)));
    answer.put("syncs", keeper.syncs().all().stream().map(keeper.syncs()::view).toList());
    return answer;
  }

  Map<String, Object> history(TableKey key, Map<String, String> query) {
    Instant since = Instant.EPOCH;
    if (query.containsKey("since")) {
      try {
        since = Instant.parse(query.get("since"));
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            "since must be an ISO-8601 instant such as 2026-12-01T00:00:00Z, got '"
                + query.get("since")
                + "'");
      }
    }
    List<Map<String, Object>> samples = new ArrayList<>();
    for (HealthSample sample : keeper.health().samples(key, since)) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("at", sample.at().toString());
      item.put("health", sample.health());
      item.put("data_files", sample.dataFiles());
      item.put("small_files", sample.smallFiles());
      item.put("delete_files", sample.deleteFiles());
      item.put("backlog_bytes", sample.backlogBytes());
      item.put("source_watermark_at", sample.sourceWatermark().map(Object::toString).orElse(null));
      samples.add(item);
    }
    return Map.of("samples", samples);
  }

  Map<String, Object> snapshots(TableKey key, int limit) {
    List<Map<String, Object>> snapshots = new ArrayList<>();
    for (TableInspector.SnapshotEntry entry : keeper.inspector().snapshots(key, limit)) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("snapshot_id", entry.snapshotId());
      item.put("parent_id", entry.parentId().orElse(null));
      item.put("committed_at", entry.committedAt().toString());
      item.put("operation", entry.operation());
      item.put("writer", entry.writer().apiName());
      item.put("added_data_files", entry.addedDataFiles());
      item.put("removed_data_files", entry.removedDataFiles());
      item.put("added_delete_files", entry.addedDeleteFiles());
      item.put("removed_delete_files", entry.removedDeleteFiles());
      item.put("added_records", entry.addedRecords());
      item.put("removed_records", entry.removedRecords());
      snapshots.add(item);
    }
    return Map.of("snapshots", snapshots);
  }

  Map<String, Object> files(TableKey key) {
    TableInspector.Files files = keeper.inspector().files(key);
    List<Map<String, Object>> histogram = new ArrayList<>();
    files
        .histogram()
        .forEach(
            bucket -> {
              Map<String, Object> item = new LinkedHashMap<>();
              item.put("min_bytes", bucket.minBytes());
              item.put("max_bytes", bucket.maxBytes());
              item.put("files", bucket.files());
              item.put("bytes", bucket.bytes());
              histogram.add(item);
            });
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("histogram", histogram);
    answer.put("target_file_size", files.targetFileSize());
    return answer;
  }

  static List<Map<String, Object>> events(List<KeeperEvent> events) {
    List<Map<String, Object>> items = new ArrayList<>();
    for (KeeperEvent event : events) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("at", event.at().toString());
      item.put("kind", event.kind());
      item.put("catalog", event.catalog().isEmpty() ? null : event.catalog());
      item.put("table", event.table().orElse(null));
      item.put("message", event.message());
      items.add(item);
    }
    return items;
  }
}
