package dev.floe.core.sync;

import static java.util.Objects.requireNonNull;

import java.util.List;

/** A MySQL table to sync: its columns in order and its primary key (empty when it has none). */
public record SourceTable(
    String database, String table, List<SourceColumn> columns, List<String> primaryKey) {

  public SourceTable {
    requireNonNull(database, "database is null");
    requireNonNull(table, "table is null");
    columns = List.copyOf(requireNonNull(columns, "columns is null"));
    primaryKey = List.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
  }

  /** {@code database.table}, the name CDC and the user's patterns use. */
  public String qualifiedName() {
    return database + "." + table;
  }
}
