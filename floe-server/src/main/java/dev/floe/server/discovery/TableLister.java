package dev.floe.server.discovery;

import java.util.List;

/** Lists every table of one catalog. Blocking; called by one thread at a time. */
public interface TableLister {

  /**
   * @throws RuntimeException when the catalog cannot be listed (the caller raises {@code
   *     catalog_unreachable} and tries again on the next refresh)
   */
  List<ListedTable> list();
}
