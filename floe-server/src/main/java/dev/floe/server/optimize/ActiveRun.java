package dev.floe.server.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.optimize.OptimizeJob;
import java.time.Instant;
import org.apache.iceberg.Table;

/**
 * An optimize run in progress on one table: the job's run, the worker group its tasks go to, and
 * what it started from.
 *
 * @param release called once when the run ends, to free the table for maintenance
 */
public record ActiveRun(
    TableKey table,
    Table loaded,
    OptimizeJob.Run run,
    String group,
    OptimizeFailures failuresBefore,
    Instant startedAt,
    Runnable release) {

  public ActiveRun {
    requireNonNull(table, "table is null");
    requireNonNull(loaded, "loaded is null");
    requireNonNull(run, "run is null");
    requireNonNull(group, "group is null");
    requireNonNull(failuresBefore, "failuresBefore is null");
    requireNonNull(startedAt, "startedAt is null");
    requireNonNull(release, "release is null");
  }
}
