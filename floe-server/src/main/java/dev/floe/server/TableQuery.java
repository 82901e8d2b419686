package dev.floe.server;

import static java.util.Objects.requireNonNull;

import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The filters, order and page of {@code GET /api/v1/tables}: pure, no I/O, no clock (the caller
 * gives {@code now}). Without parameters it answers every table by catalog and name.
 *
 * @param sort the summary field to order by, descending when {@code descending}
 * @param states only tables in one of these states; empty for all
 * @param namespace only tables of this namespace (the name before the last dot)
 * @param catalog only tables of this catalog
 * @param text only tables whose name contains this, ignoring case
 * @param healthBelow only tables whose health is below this
 * @param offset tables skipped after filtering and ordering
 * @param limit the most tables answered; empty for all
 */
public record TableQuery(
    String sort,
    boolean descending,
    Set<TableStatus> states,
    Optional<String> namespace,
    Optional<String> catalog,
    Optional<String> text,
    OptionalInt healthBelow,
    int offset,
    OptionalInt limit) {

  /** A table as the query sees it: its record and its newest source watermark. */
  public record Row(TableRecord table, Optional<Instant> sourceWatermark) {
    public Row {
      requireNonNull(table, "table is null");
      requireNonNull(sourceWatermark, "sourceWatermark is null");
    }

    /** Now minus the source watermark, when there is one. */
    public Optional<Duration> freshness(Instant now) {
      return sourceWatermark.map(watermark -> Duration.between(watermark, now));
    }
  }

  /** The tables that matched, before paging ({@code total}), and the page. */
  public record Page(int total, List<Row> rows) {
    public Page {
      rows = List.copyOf(rows);
    }
  }

  /** The fields {@code sort} takes, each with the value it orders by (empty sorts last). */
  private static final Map<String, Function<Row, Optional<? extends Comparable<?>>>> FIELDS =
      Map.ofEntries(
          Map.entry("table", row -> Optional.of(row.table().key().table())),
          Map.entry("catalog", row -> Optional.of(row.table().key().catalog())),
          Map.entry("state", row -> Optional.of(row.table().status().apiName())),
          Map.entry("health", row -> Optional.of(row.table().health())),
          Map.entry("data_files", row -> Optional.of(row.table().dataFiles())),
          Map.entry("small_files", row -> Optional.of(row.table().smallFiles())),
          Map.entry("delete_files", row -> Optional.of(row.table().deleteFiles())),
          Map.entry("backlog_bytes", row -> Optional.of(row.table().backlogBytes())),
          Map.entry("last_optimized_at", row -> row.table().lastOptimizedAt()),
          Map.entry("consecutive_failures", row -> Optional.of(row.table().consecutiveFailures())),
          Map.entry("source_watermark_at", Row::sourceWatermark),
          // the newer the watermark, the fresher: ascending freshness is descending watermark
          Map.entry(
              "freshness_ms",
              row -> row.sourceWatermark().map(watermark -> -watermark.toEpochMilli())));

  /** The most tables one page holds. */
  public static final int MAX_LIMIT = 10_000;

  public TableQuery {
    requireNonNull(sort, "sort is null");
    states = Set.copyOf(requireNonNull(states, "states is null"));
    requireNonNull(namespace, "namespace is null");
    requireNonNull(catalog, "catalog is null");
    requireNonNull(text, "text is null");
    requireNonNull(healthBelow, "healthBelow is null");
    requireNonNull(limit, "limit is null");
    if (!FIELDS.containsKey(sort)) {
      throw new IllegalArgumentException(
          "sort must be one of "
              + FIELDS.keySet().stream().sorted().collect(Collectors.joining(", "))
              + " (prefix - for descending), got '"
              + sort
              + "'");
    }
  }

  /** Every table, by catalog and name. */
  public static TableQuery all() {
    return parse(Map.of());
  }

  /**
   * The query of the request's parameters ({@code sort, state, namespace, catalog, q, health_below,
   * offset, limit}); other parameters are left to the caller.
   *
   * @throws IllegalArgumentException naming the parameter, the value and what it takes
   */
  public static TableQuery parse(Map<String, String> parameters) {
    String sort = parameters.getOrDefault("sort", "catalog");
    boolean descending = sort.startsWith("-");
    Set<TableStatus> states =
        parameters.containsKey("state") && !parameters.get("state").isEmpty()
            ? Arrays.stream(parameters.get("state").split(","))
                .map(TableQuery::state)
                .collect(Collectors.toSet())
            : Set.of();
    return new TableQuery(
        descending ? sort.substring(1) : sort,
        descending,
        states,
        text(parameters, "namespace"),
        text(parameters, "catalog"),
        text(parameters, "q"),
        number(parameters, "health_below", 0, 101),
        number(parameters, "offset", 0, Integer.MAX_VALUE).orElse(0),
        number(parameters, "limit", 1, MAX_LIMIT));
  }

  /** Filters, orders and pages the rows. */
  public Page apply(List<Row> rows) {
    List<Row> matching =
        rows.stream().filter(this::matches).sorted(comparator()).collect(Collectors.toList());
    int from = Math.min(offset, matching.size());
    int to =
        limit.isPresent() ? Math.min(matching.size(), from + limit.getAsInt()) : matching.size();
    return new Page(matching.size(), matching.subList(from, to));
  }

  private boolean matches(Row row) {
    TableRecord table = row.table();
    String name = table.key().table();
    int dot = name.lastIndexOf('.');
    String tableNamespace = dot < 0 ? "" : name.substring(0, dot);
    return (states.isEmpty() || states.contains(table.status()))
        && namespace.map(tableNamespace::equals).orElse(true)
        && catalog.map(table.key().catalog()::equals).orElse(true)
        && text.map(part -> name.toLowerCase(Locale.ROOT).contains(part.toLowerCase(Locale.ROOT)))
            .orElse(true)
        && (healthBelow.isEmpty() || table.health() < healthBelow.getAsInt());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Comparator<Row> comparator() {
    Function<Row, Optional<? extends Comparable<?>>> field = FIELDS.get(sort);
    Comparator<Comparable> natural = Comparator.naturalOrder();
    Comparator<Comparable> order = descending ? natural.reversed() : natural;
    Comparator<Row> bySort =
        Comparator.comparing(
            row -> (Comparable) field.apply(row).orElse(null), Comparator.nullsLast(order));
    return bySort
        .thenComparing(row -> row.table().key().catalog())
        .thenComparing(row -> row.table().key().table());
  }

  private static TableStatus state(String text) {
    try {
      return TableStatus.fromApiName(text.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "state must be one or more of "
              + Arrays.stream(TableStatus.values())
                  .map(TableStatus::apiName)
                  .collect(Collectors.joining(", "))
              + " (comma-separated), got '"
              + text
              + "'");
    }
  }

  private static Optional<String> text(Map<String, String> parameters, String name) {
    String value = parameters.get(name);
    return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
  }

  private static OptionalInt number(Map<String, String> parameters, String name, int min, int max) {
    String value = parameters.get(name);
    if (value == null || value.isEmpty()) {
      return OptionalInt.empty();
    }
    try {
      int number = Integer.parseInt(value.trim());
      if (number >= min && number <= max) {
        return OptionalInt.of(number);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        name + " must be a number from " + min + " to " + max + ", got '" + value + "'");
  }
}
