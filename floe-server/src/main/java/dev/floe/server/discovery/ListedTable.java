package dev.floe.server.discovery;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * A table as a catalog listing shows it.
 *
 * @param table NAMESPACE.NAME
 * @param metadataLocation its current metadata file, when the listing tells it; empty means the
 *     table must be loaded to know whether it changed
 */
public record ListedTable(String table, Optional<String> metadataLocation) {
  public ListedTable {
    requireNonNull(table, "table is null");
    requireNonNull(metadataLocation, "metadataLocation is null");
  }
}
