package dev.floe.server.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.iceberg.optimize.OptimizeJob;
import org.apache.iceberg.Table;

/**
 * A table as last evaluated: loaded, with the plan the optimize job would run now and the worker
 * group its tasks go to.
 */
public record Evaluated(Table table, OptimizeJob.Preview preview, String group) {
  public Evaluated {
    requireNonNull(table, "table is null");
    requireNonNull(preview, "preview is null");
    requireNonNull(group, "group is null");
  }
}
