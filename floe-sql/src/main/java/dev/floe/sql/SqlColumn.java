package dev.floe.sql;

import static java.util.Objects.requireNonNull;

/**
 * One column of a result: its name, its SQL type as Flink prints it (e.g. {@code BIGINT NOT NULL})
 * and whether it holds numbers (the aligned table right-aligns those).
 */
public record SqlColumn(String name, String type, boolean numeric) {
  public SqlColumn {
    requireNonNull(name, "name is null");
    requireNonNull(type, "type is null");
  }
}
