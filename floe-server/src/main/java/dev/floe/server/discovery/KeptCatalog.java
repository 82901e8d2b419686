package dev.floe.server.discovery;

import static java.util.Objects.requireNonNull;

import dev.floe.iceberg.FloeCatalog;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A catalog the keeper keeps: the open catalog, how to list it, and which of its tables to keep
 * (regular expressions over NS.NAME; no include means every table).
 */
public record KeptCatalog(
    String name,
    FloeCatalog catalog,
    TableLister lister,
    List<Pattern> include,
    List<Pattern> exclude) {

  public KeptCatalog {
    requireNonNull(name, "name is null");
    requireNonNull(catalog, "catalog is null");
    requireNonNull(lister, "lister is null");
    include = List.copyOf(requireNonNull(include, "include is null"));
    exclude = List.copyOf(requireNonNull(exclude, "exclude is null"));
  }

  /** Whether the keeper keeps {@code table} (NS.NAME). */
  public boolean keeps(String table) {
    boolean included =
        include.isEmpty() || include.stream().anyMatch(p -> p.matcher(table).matches());
    return included && exclude.stream().noneMatch(p -> p.matcher(table).matches());
  }
}
