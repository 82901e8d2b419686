package dev.floe.server.syncs;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.server.alerts.SyncObservation;
import dev.floe.server.store.KeeperStore;
import dev.floe.server.store.SyncReportRow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The latest status each sync job sent ({@code PUT /api/v1/syncs/{name}}), kept in the store so a
 * restarted keeper still shows every sync. A sync that has not reported for {@link #STALE_AFTER} is
 * {@code stale}: it reports every 5 s, so that many missed reports mean it is gone or cut off.
 *
 * <p>Thread-safe.
 */
public final class SyncReports {

  private static final Logger LOG = LoggerFactory.getLogger(SyncReports.class);

  /** Six missed reports. */
  public static final Duration STALE_AFTER = Duration.ofSeconds(30);

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,255}");

  private final KeeperStore store;
  private final Clock clock;
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, SyncReport> latest = new TreeMap<>();

  /** Loads the reports the store holds. */
  public SyncReports(KeeperStore store, Clock clock) {
    this.store = requireNonNull(store, "store is null");
    this.clock = requireNonNull(clock, "clock is null");
    for (SyncReportRow row : store.syncReports()) {
      try {
        latest.put(row.name(), parse(row.name(), json.readTree(row.report()), row.reportedAt()));
      } catch (IOException | IllegalArgumentException e) {
        LOG.warn("the stored report of sync {} cannot be read, ignoring it: {}", row.name(), e);
      }
    }
  }

  /**
   * Takes a report.
   *
   * @throws IllegalArgumentException naming the field, the value and what it must be
   */
  public SyncReport report(String name, JsonNode body) {
    requireNonNull(body, "body is null");
    Instant now = clock.instant();
    SyncReport report = parse(name, body, now);
    synchronized (this) {
      store.saveSyncReport(new SyncReportRow(name, now, document(report)));
      latest.put(name, report);
    }
    return report;
  }

  /** Every sync that has reported, by name. */
  public synchronized List<SyncReport> all() {
    return List.copyOf(latest.values());
  }

  public synchronized Optional<SyncReport> get(String name) {
    return Optional.ofNullable(latest.get(name));
  }

  /** What the alert rules look at: each sync's state, last report and lag (-1 when unknown). */
  public synchronized List<SyncObservation> observations() {
    return latest.values().stream()
        .map(
            report ->
                new SyncObservation(
                    report.name(), report.state(), report.reportedAt(), report.lagMs().orElse(-1L)))
        .toList();
  }

  /** Whether the sync has not reported for {@link #STALE_AFTER}. */
  public boolean stale(SyncReport report) {
    return Duration.between(report.reportedAt(), clock.instant()).compareTo(STALE_AFTER) > 0;
  }

  /** A report as the API answers it. */
  public Map<String, Object> view(SyncReport report) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("name", report.name());
    item.put("source", report.source());
    item.put("state", report.state());
    item.put("reported_at", report.reportedAt().toString());
    item.put("stale", stale(report));
    item.put("started_at", report.startedAt().map(Instant::toString).orElse(null));
    item.put("lag_ms", report.lagMs().orElse(null));
    item.put("error", report.error().orElse(null));
    List<Map<String, Object>> tables = new ArrayList<>();
    for (SyncReport.Table table : report.tables()) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("source_table", table.sourceTable());
      entry.put("table", table.table());
      entry.put("phase", table.phase());
      entry.put("rows", table.rows());
      entry.put("lag_ms", table.lagMs().orElse(null));
      entry.put("stopped", table.stopped().orElse(null));
      tables.add(entry);
    }
    item.put("tables", tables);
    return item;
  }

  private String document(SyncReport report) {
    Map<String, Object> body = view(report);
    body.remove("stale");
    body.remove("reported_at");
    body.remove("name");
    try {
      return json.writeValueAsString(body);
    } catch (IOException e) {
      throw new UncheckedIOException("a sync report cannot be written as JSON", e);
    }
  }

  /** Reads and checks a report body. */
  static SyncReport parse(String name, JsonNode body, Instant reportedAt) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "the sync name '"
              + name
              + "' may only hold letters, digits, '.', '_' and '-' (1 to 255 of them), as floe"
              + " sync --name does");
    }
    if (!body.isObject()) {
      throw new IllegalArgumentException(
          "the body must be a JSON object {source, state, started_at, lag_ms, error, tables}");
    }
    String source = text(body, "source", true).orElseThrow();
    String state = text(body, "state", true).orElseThrow();
    if (!SyncReport.STATES.contains(state)) {
      throw new IllegalArgumentException(
          "state must be one of " + String.join(", ", SyncReport.STATES) + "; got '" + state + "'");
    }
    Optional<Instant> startedAt = instant(body, "started_at");
    Optional<Long> lag = count(body, "lag_ms", "lag_ms");
    Optional<String> error = text(body, "error", false);
    JsonNode tableList = body.path("tables");
    if (!tableList.isMissingNode() && !tableList.isNull() && !tableList.isArray()) {
      throw new IllegalArgumentException(
          "tables must be a list of {source_table, table, phase, rows, lag_ms}");
    }
    List<SyncReport.Table> tables = new ArrayList<>();
    int index = 0;
    for (JsonNode table : tableList) {
      String where = "tables[" + index++ + "]";
      if (!table.isObject()) {
        throw new IllegalArgumentException(
            where + " must be an object {source_table, table, phase, rows, lag_ms}");
      }
      String phase = text(table, "phase", true, where + ".phase").orElseThrow();
      if (!SyncReport.PHASES.contains(phase)) {
        throw new IllegalArgumentException(
            where
                + ".phase must be one of "
                + String.join(", ", SyncReport.PHASES)
                + "; got '"
                + phase
                + "'");
      }
      tables.add(
          new SyncReport.Table(
              text(table, "source_table", true, where + ".source_table").orElseThrow(),
              text(table, "table", true, where + ".table").orElseThrow(),
              phase,
              count(table, "rows", where + ".rows").orElse(0L),
              count(table, "lag_ms", where + ".lag_ms"),
              text(table, "stopped", false, where + ".stopped")));
    }
    return new SyncReport(name, source, state, startedAt, lag, error, tables, reportedAt);
  }

  private static Optional<String> text(JsonNode body, String field, boolean required) {
    return text(body, field, required, field);
  }

  private static Optional<String> text(
      JsonNode body, String field, boolean required, String where) {
    JsonNode value = body.path(field);
    if (value.isMissingNode() || value.isNull()) {
      if (required) {
        throw new IllegalArgumentException(where + " is required (a string)");
      }
      return Optional.empty();
    }
    if (!value.isTextual() || (required && value.asText().isBlank())) {
      throw new IllegalArgumentException(where + " must be a non-empty string; got " + value);
    }
    return Optional.of(value.asText());
  }

  private static Optional<Long> count(JsonNode body, String field, String where) {
    JsonNode value = body.path(field);
    if (value.isMissingNode() || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isIntegralNumber() || value.asLong() < 0) {
      throw new IllegalArgumentException(where + " must be a whole number >= 0; got " + value);
    }
    return Optional.of(value.asLong());
  }

  private static Optional<Instant> instant(JsonNode body, String field) {
    Optional<String> text = text(body, field, false);
    try {
      return text.map(Instant::parse);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          field
              + " must be an ISO-8601 instant such as 2026-11-01T00:30:00Z; got '"
              + text.get()
              + "'");
    }
  }
}
