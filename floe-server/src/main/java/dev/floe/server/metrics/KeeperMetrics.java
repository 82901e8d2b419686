package dev.floe.server.metrics;

import static java.util.Objects.requireNonNull;

import dev.floe.core.alert.AlertRule;
import dev.floe.core.state.TableKey;
import dev.floe.server.TableRegistry;
import dev.floe.server.optimize.OptimizerWorkers;
import dev.floe.server.optimize.TaskQueue;
import dev.floe.server.store.RunRecord;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import dev.floe.server.workers.WorkerGroups;
import dev.floe.server.workers.WorkerRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The keeper's Prometheus metrics (names in docs/keeper.md). Per-table gauges read the {@link
 * TableRegistry}'s current record each time they are scraped, so they always equal what the API
 * shows; a table's meters are removed when it is dropped. The state is one gauge per table whose
 * {@code state} label is the current state (value 1), re-registered when the state changes.
 */
public final class KeeperMetrics implements TableRegistry.Listener, AutoCloseable {

  private volatile Supplier<Map<AlertRule, Integer>> firingByRule = Map::of;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final TableRegistry tables;
  private final Map<TableKey, List<Meter>> tableMeters = new ConcurrentHashMap<>();
  private final Map<TableKey, Meter> stateMeters = new ConcurrentHashMap<>();
  private final List<AutoCloseable> binders = new ArrayList<>();

  public KeeperMetrics(
      TableRegistry tables,
      TaskQueue queue,
      OptimizerWorkers workers,
      WorkerGroups groups,
      WorkerRegistry workerRegistry,
      Clock clock) {
    this.tables = requireNonNull(tables, "tables is null");
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    binders.add(gc);
    Gauge.builder("floe_queue_tasks", queue, TaskQueue::queued)
        .description("File-group tasks waiting for a worker")
        .register(registry);
    Gauge.builder("floe_queue_leased_tasks", queue, TaskQueue::leased)
        .description("File-group tasks held by workers")
        .register(registry);
    Gauge.builder(
            "floe_queue_oldest_task_age_seconds",
            queue,
            q ->
                q.oldestQueuedAt()
                    .map(at -> (clock.millis() - at.toEpochMilli()) / 1000.0)
                    .orElse(0.0))
        .description("Age of the oldest task waiting for a worker")
        .register(registry);
    Gauge.builder("floe_worker_slots_busy", workers, OptimizerWorkers::busy)
        .description("Worker slots rewriting a task")
        .register(registry);
    Gauge.builder("floe_worker_slots", workers, OptimizerWorkers::threads)
        .description("Worker slots")
        .register(registry);
    for (WorkerGroups.Group group : groups.all()) {
      Gauge.builder("floe_workers_live", workerRegistry, live -> live.live(group.name()))
          .description("Live workers of a group")
          .tag("group", group.name())
          .register(registry);
      Gauge.builder("floe_workers_target", group, WorkerGroups.Group::target)
          .description("Target workers of a group")
          .tag("group", group.name())
          .register(registry);
    }
    FunctionCounter.builder("floe_queue_lease_expiries_total", queue, TaskQueue::expiredLeases)
        .description("Leases that expired without a heartbeat (their tasks went back)")
        .register(registry);
    for (TableStatus status : TableStatus.values()) {
      Gauge.builder(
              "floe_tables",
              tables,
              registry -> registry.all().stream().filter(t -> t.status() == status).count())
          .tag("state", status.apiName())
          .description("Tables by state")
          .register(registry);
    }
    tables.addListener(this);
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    return registry.scrape();
  }

  /** Publishes the alerts firing per rule, as the alert loop last saw them. */
  public void bindAlerts(Supplier<Map<AlertRule, Integer>> firingByRule) {
    // Micrometer holds a gauge's object weakly: the supplier is kept here so it stays reachable
    this.firingByRule = requireNonNull(firingByRule, "firingByRule is null");
    for (AlertRule rule : AlertRule.values()) {
      Gauge.builder(
              "floe_alerts_firing",
              this,
              metrics -> metrics.firingByRule.get().getOrDefault(rule, 0))
          .tag("rule", rule.ruleName())
          .description("Alerts firing, by rule")
          .register(registry);
    }
  }

  /** Counts a finished delivery attempt. */
  public void recordDelivery(String channel, String status) {
    Counter.builder("floe_alert_deliveries_total")
        .tags(Tags.of("channel", channel, "status", status))
        .description("Alert delivery attempts, by channel and outcome (sent, failed)")
        .register(registry)
        .increment();
  }

  /** Counts a finished run. */
  public void recordRun(RunRecord run) {
    Tags tags = Tags.of("kind", run.kind(), "result", run.result());
    Counter.builder("floe_runs_total")
        .tags(tags)
        .description("Runs by kind and result")
        .register(registry)
        .increment();
    Timer.builder("floe_run_duration_seconds")
        .tags(tags)
        .description("Duration of runs")
        .register(registry)
        .record(run.duration());
    if (run.kind().equals("optimize")) {
      Counter.builder("floe_optimize_bytes_read_total")
          .description("Bytes read by optimize runs")
          .register(registry)
          .increment(run.bytesIn());
      Counter.builder("floe_optimize_bytes_written_total")
          .description("Bytes written by optimize runs")
          .register(registry)
          .increment(run.bytesOut());
    }
  }

  @Override
  public void changed(Optional<TableRecord> before, Optional<TableRecord> after) {
    if (after.isEmpty()) {
      TableKey key = before.get().key();
      List<Meter> meters = tableMeters.remove(key);
      if (meters != null) {
        meters.forEach(registry::remove);
      }
      Meter state = stateMeters.remove(key);
      if (state != null) {
        registry.remove(state);
      }
      return;
    }
    TableRecord record = after.get();
    TableKey key = record.key();
    tableMeters.computeIfAbsent(key, this::registerTable);
    if (before.isEmpty() || before.get().status() != record.status()) {
      Meter old = stateMeters.remove(key);
      if (old != null) {
        registry.remove(old);
      }
      stateMeters.put(
          key,
          Gauge.builder("floe_table_state", () -> 1)
              .tags(tableTags(key).and("state", record.status().apiName()))
              .description("The table's state (the state label), always 1")
              .register(registry));
    }
  }

  private List<Meter> registerTable(TableKey key) {
    Tags tags = tableTags(key);
    List<Meter> meters = new ArrayList<>();
    meters.add(gauge("floe_table_health", "Table health 0-100", tags, key, TableRecord::health));
    meters.add(
        gauge("floe_table_data_files", "Live data files", tags, key, TableRecord::dataFiles));
    meters.add(
        gauge("floe_table_small_files", "Small data files", tags, key, TableRecord::smallFiles));
    meters.add(
        gauge("floe_table_delete_files", "Live delete files", tags, key, TableRecord::deleteFiles));
    meters.add(
        gauge(
            "floe_table_backlog_bytes",
            "Bytes the planner would rewrite now",
            tags,
            key,
            TableRecord::backlogBytes));
    meters.add(
        gauge(
            "floe_table_consecutive_failures",
            "Failed runs in a row",
            tags,
            key,
            TableRecord::consecutiveFailures));
    return meters;
  }

  private Meter gauge(
      String name,
      String description,
      Tags tags,
      TableKey key,
      ToDoubleFunction<TableRecord> value) {
    return Gauge.builder(
            name,
            tables,
            registry -> registry.get(key).map(value::applyAsDouble).orElse(Double.NaN))
        .tags(tags)
        .description(description)
        .register(registry);
  }

  private static Tags tableTags(TableKey key) {
    return Tags.of("catalog", key.catalog(), "table", key.table());
  }

  @Override
  public void close() {
    for (AutoCloseable binder : binders) {
      try {
        binder.close();
      } catch (Exception e) {
        // a JVM binder that cannot unregister holds nothing of ours
      }
    }
    registry.close();
  }
}
