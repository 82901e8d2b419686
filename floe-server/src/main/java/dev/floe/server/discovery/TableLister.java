package dev.floe.server.discovery;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Lists every table of one catalog. Blocking; called by the refresh and by the poll of recently
 * changed tables, so an implementation is thread-safe.
 */
public interface TableLister {

  /**
   * @throws RuntimeException when the catalog cannot be listed (the caller raises {@code
   *     catalog_unreachable} and tries again on the next refresh)
   */
  List<ListedTable> list();

  /**
   * The current metadata locations of a few tables (NS.NAME), read without listing the catalog or
   * loading any metadata, for the keeper's poll of recently changed tables between refreshes. A
   * table not in the catalog is left out of the answer.
   *
   * @return empty when this lister cannot tell a table's location cheaply (then only refreshes see
   *     changes)
   * @throws RuntimeException when the catalog cannot be reached
   */
  default Optional<List<ListedTable>> locations(Collection<String> tables) {
    return Optional.empty();
  }
}
