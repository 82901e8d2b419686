package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What {@code floe sync} prints about its progress, planned from two readings of the sync's status
 * (the previous report's and this one's): the lines, nothing else. It does no I/O and reads no
 * clock; the rows per second come from the two readings' rows and times.
 *
 * <p>Each table is in one {@link TableState}: copying, in the binlog phase, lagging, or stopped. A
 * table in the binlog phase lags when its lag is above the threshold the view is given ({@link
 * #laggingThreshold}); the tables in the binlog phase that do not lag are the quiet majority of a
 * large sync and are summarized in one line, never listed one by one.
 *
 * <ul>
 *   <li>{@link Mode#LIVE} (an interactive terminal): one block, redrawn in place at each report: a
 *       totals line, then the copying, lagging and stopped tables (at most {@link
 *       #MAXIMUM_LISTED_TABLES}, then "... and N more copying"), then one line for the tables in
 *       the binlog phase. Lines are cut to the terminal's width so that the block's height is its
 *       number of lines.
 *   <li>{@link Mode#LOG} (a file, a pipe, a service manager's journal): a line per table whose
 *       state changed since the previous report (every table on the first report), grouped by the
 *       new state and capped like the live block (a sync that falls behind makes every table lag at
 *       once), then the totals line. A sync whose tables keep their state prints one line per
 *       report, however many tables it has.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class ProgressView {

  /** Where the lines go. */
  public enum Mode {
    /** An interactive terminal: one block, redrawn in place at each report. */
    LIVE,
    /** A log or a pipe: a line per table whose state changed, and a totals line per report. */
    LOG;

    /**
     * The mode {@code --progress} asks for: {@code live}, {@code log}, or {@code auto} (live on an
     * interactive terminal, else log).
     *
     * @throws FloeException bad input for any other value
     */
    public static Mode choose(String value, boolean interactiveTerminal) {
      requireNonNull(value, "value is null");
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "auto" -> interactiveTerminal ? LIVE : LOG;
        case "live" -> LIVE;
        case "log" -> LOG;
        default ->
            throw FloeException.badInput(
                "--progress must be auto, live or log, got '" + value + "'.");
      };
    }
  }

  /** A table's state as progress shows it. */
  public enum TableState {
    /** Its initial copy runs. */
    COPYING("copying"),
    /** Copied, reading the binlog, not lagging (or its lag not known yet). */
    BINLOG("binlog"),
    /** Reading the binlog with a lag above the threshold. */
    LAGGING("lagging"),
    /** The sync stopped taking it (dropped in MySQL, an incompatible change, ...). */
    STOPPED("stopped");

    private final String label;

    TableState(String label) {
      this.label = label;
    }

    /** The word the lines use. */
    public String label() {
      return label;
    }
  }

  /** The lagging threshold never goes below this, however short the intervals. */
  public static final Duration MINIMUM_LAGGING_THRESHOLD = Duration.ofSeconds(10);

  /**
   * Tables listed one by one in a live block (copying, lagging and stopped together); a terminal
   * has about 40 rows, and the rest are counted in "... and N more" lines.
   */
  public static final int MAXIMUM_LISTED_TABLES = 20;

  /** The width lines are cut to on a terminal whose width is not known. */
  public static final int DEFAULT_WIDTH = 120;

  private final Mode mode;
  private final Duration laggingThreshold;
  private final int width;

  /**
   * @param mode live block or log lines
   * @param laggingThreshold a table in the binlog phase lags when its lag is above this
   * @param width the terminal's width in columns: live lines are cut to fit (log lines never are)
   */
  public ProgressView(Mode mode, Duration laggingThreshold, int width) {
    this.mode = requireNonNull(mode, "mode is null");
    this.laggingThreshold = requireNonNull(laggingThreshold, "laggingThreshold is null");
    if (laggingThreshold.isNegative()) {
      throw new IllegalArgumentException("laggingThreshold is negative: " + laggingThreshold);
    }
    if (width < 20) {
      throw new IllegalArgumentException("width must be at least 20 columns, got " + width);
    }
    this.width = width;
  }

  public Mode mode() {
    return mode;
  }

  /**
   * When a table lags: its lag is above {@code max(2 x checkpoint interval + heartbeat interval, 10
   * s)}. A sync that keeps up still shows a lag of up to about one checkpoint interval plus one
   * heartbeat interval (heartbeats move the position on, checkpoints commit it); the second
   * checkpoint interval is slack for one slow checkpoint, and the 10 s floor keeps short intervals
   * from calling every hiccup a lag.
   */
  public static Duration laggingThreshold(Duration checkpointInterval, Duration heartbeatInterval) {
    requireNonNull(checkpointInterval, "checkpointInterval is null");
    requireNonNull(heartbeatInterval, "heartbeatInterval is null");
    Duration threshold = checkpointInterval.multipliedBy(2).plus(heartbeatInterval);
    return threshold.compareTo(MINIMUM_LAGGING_THRESHOLD) < 0
        ? MINIMUM_LAGGING_THRESHOLD
        : threshold;
  }

  /**
   * The terminal's width from the environment's {@code COLUMNS}, else {@link #DEFAULT_WIDTH} (also
   * when it is not a number of at least 20).
   */
  public static int terminalWidth(Map<String, String> environment) {
    String columns = environment.get("COLUMNS");
    if (columns != null) {
      try {
        int width = Integer.parseInt(columns.trim());
        if (width >= 20) {
          return width;
        }
      } catch (NumberFormatException notANumber) {
        // a COLUMNS that is not a number says nothing about the width
      }
    }
    return DEFAULT_WIDTH;
  }

  /** The state a table is in, by this view's lagging threshold. */
  public TableState state(SyncStatus.Table table) {
    if (table.stopped().isPresent()) {
      return TableState.STOPPED;
    }
    if (table.phase() == SyncStatus.Phase.SNAPSHOT) {
      return TableState.COPYING;
    }
    return table.lagMillis().isPresent()
            && table.lagMillis().getAsLong() > laggingThreshold.toMillis()
        ? TableState.LAGGING
        : TableState.BINLOG;
  }

  /**
   * The lines to print for {@code current}.
   *
   * @param previous the status the previous report printed, if there was one: the rows per second
   *     and (in log mode) the state changes are against it
   */
  public List<String> render(Optional<SyncStatus> previous, SyncStatus current) {
    requireNonNull(previous, "previous is null");
    requireNonNull(current, "current is null");
    Map<String, OptionalDouble> rates = rates(previous, current);
    return mode == Mode.LIVE ? live(current, rates) : log(previous, current, rates);
  }

  /**
   * The text that replaces the block of {@code previousLineCount} lines printed last (the cursor
   * just below it) with {@code lines}: ANSI cursor up, to the line's start, erase to the end of the
   * screen, then the lines.
   */
  public static String redraw(int previousLineCount, List<String> lines) {
    StringBuilder text = new StringBuilder();
    if (previousLineCount > 0) {
      text.append("\033[").append(previousLineCount).append("A\r\033[J");
    }
    lines.forEach(line -> text.append(line).append('\n'));
    return text.toString();
  }

  private List<String> live(SyncStatus current, Map<String, OptionalDouble> rates) {
    Map<TableState, List<SyncStatus.Table>> byState = byState(current);
    List<String> lines = new ArrayList<>();
    lines.add(totals(current, byState, rates));
    lines.addAll(
        listed(
            byState, List.of(TableState.COPYING, TableState.LAGGING, TableState.STOPPED), rates));
    List<SyncStatus.Table> binlog = byState.get(TableState.BINLOG);
    if (!binlog.isEmpty()) {
      StringBuilder line =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "  %,d %s in the binlog phase, %s",
                  binlog.size(),
                  binlog.size() == 1 ? "table" : "tables",
                  lag(largestLag(binlog))));
      total(binlog, rates)
          .ifPresent(rate -> line.append(String.format(Locale.ROOT, ", %,.0f rows/s", rate)));
      lines.add(line.toString());
    }
    return lines.stream().map(this::fit).toList();
  }

  private List<String> log(
      Optional<SyncStatus> previous, SyncStatus current, Map<String, OptionalDouble> rates) {
    Map<String, TableState> before = new HashMap<>();
    previous.ifPresent(
        status -> status.tables().forEach(table -> before.put(table.sourceTable(), state(table))));
    Map<TableState, List<SyncStatus.Table>> changed = emptyByState();
    for (SyncStatus.Table table : current.tables()) {
      TableState state = state(table);
      if (before.get(table.sourceTable()) != state) {
        changed.get(state).add(table);
      }
    }
    // the tables share one lag: when the sync falls behind, all of them start lagging at once
    List<String> lines = new ArrayList<>(listed(changed, List.of(TableState.values()), rates));
    lines.add(totals(current, byState(current), rates));
    return lines;
  }

  /**
   * A line per table of {@code states}, in that order, at most {@link #MAXIMUM_LISTED_TABLES} in
   * all; the rest of each state in one "... and N more" line.
   */
  private static List<String> listed(
      Map<TableState, List<SyncStatus.Table>> byState,
      List<TableState> states,
      Map<String, OptionalDouble> rates) {
    List<String> lines = new ArrayList<>();
    int listed = 0;
    for (TableState state : states) {
      List<SyncStatus.Table> tables = byState.get(state);
      int shown = Math.min(tables.size(), MAXIMUM_LISTED_TABLES - listed);
      for (SyncStatus.Table table : tables.subList(0, shown)) {
        lines.add(tableLine(table, state, rates.get(table.sourceTable())));
      }
      listed += shown;
      if (shown < tables.size()) {
        lines.add(
            String.format(
                Locale.ROOT, "  ... and %,d more %s", tables.size() - shown, state.label()));
      }
    }
    return lines;
  }

  /** "progress: 1,000 tables: 3 copying (12,000 / ~50,000 rows), 2 lagging, ...; lag 0.4 s". */
  private static String totals(
      SyncStatus current,
      Map<TableState, List<SyncStatus.Table>> byState,
      Map<String, OptionalDouble> rates) {
    List<String> parts = new ArrayList<>();
    List<SyncStatus.Table> copying = byState.get(TableState.COPYING);
    if (!copying.isEmpty()) {
      parts.add(
          String.format(
              Locale.ROOT,
              "%,d copying (%,d / ~%,d rows)",
              copying.size(),
              copying.stream().mapToLong(SyncStatus.Table::rows).sum(),
              copying.stream().mapToLong(SyncStatus.Table::estimatedRows).sum()));
    }
    for (TableState state : List.of(TableState.LAGGING, TableState.STOPPED)) {
      if (!byState.get(state).isEmpty()) {
        parts.add(String.format(Locale.ROOT, "%,d %s", byState.get(state).size(), state.label()));
      }
    }
    if (!byState.get(TableState.BINLOG).isEmpty()) {
      parts.add(
          String.format(
              Locale.ROOT, "%,d in the binlog phase", byState.get(TableState.BINLOG).size()));
    }
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "progress: %,d %s",
                current.tables().size(),
                current.tables().size() == 1 ? "table" : "tables"));
    if (!parts.isEmpty()) {
      line.append(": ").append(String.join(", ", parts));
    }
    boolean binlogPhase =
        !byState.get(TableState.BINLOG).isEmpty() || !byState.get(TableState.LAGGING).isEmpty();
    if (binlogPhase) {
      line.append("; ").append(lag(current.lagMillis()));
    }
    total(current.tables(), rates)
        .ifPresent(rate -> line.append(String.format(Locale.ROOT, "; %,.0f rows/s", rate)));
    return line.toString();
  }

  /** " copying shop.orders 12,000 / ~50,000 rows (24%) 3,000 rows/s". */
  private static String tableLine(
      SyncStatus.Table table, TableState state, OptionalDouble rowsPerSecond) {
    String detail =
        switch (state) {
          case COPYING -> copied(table);
          case BINLOG, LAGGING ->
              String.format(Locale.ROOT, "%,d rows, %s", table.rows(), lag(table.lagMillis()));
          case STOPPED -> table.stopped().orElseThrow().replaceAll("\\s+", " ");
        };
    String rate =
        state == TableState.STOPPED || rowsPerSecond.isEmpty()
            ? ""
            : String.format(Locale.ROOT, "%,10.0f rows/s", rowsPerSecond.getAsDouble());
    return String.format(
            Locale.ROOT, "  %-8s %-40s %-34s %s", state.label(), table.sourceTable(), detail, rate)
        .stripTrailing();
  }

  private static String copied(SyncStatus.Table table) {
    String rows =
        String.format(Locale.ROOT, "%,d / ~%,d rows", table.rows(), table.estimatedRows());
    // MySQL's estimate is rough: a share above 100% would only say so
    return table.estimatedRows() > 0 && table.rows() <= table.estimatedRows()
        ? rows + String.format(Locale.ROOT, " (%d%%)", table.rows() * 100 / table.estimatedRows())
        : rows;
  }

  /** "lag 0.4 s", "lag 12 min 05 s", "lag 3 h 02 min", or "lag not known yet". */
  static String lag(OptionalLong lagMillis) {
    if (lagMillis.isEmpty()) {
      return "lag not known yet";
    }
    long millis = Math.max(0, lagMillis.getAsLong());
    if (millis < 60_000) {
      return String.format(Locale.ROOT, "lag %.1f s", millis / 1000.0);
    }
    long seconds = millis / 1000;
    return seconds < 3600
        ? String.format(Locale.ROOT, "lag %d min %02d s", seconds / 60, seconds % 60)
        : String.format(Locale.ROOT, "lag %d h %02d min", seconds / 3600, seconds % 3600 / 60);
  }

  private Map<TableState, List<SyncStatus.Table>> byState(SyncStatus status) {
    Map<TableState, List<SyncStatus.Table>> byState = emptyByState();
    status.tables().forEach(table -> byState.get(state(table)).add(table));
    return byState;
  }

  private static Map<TableState, List<SyncStatus.Table>> emptyByState() {
    Map<TableState, List<SyncStatus.Table>> byState = new EnumMap<>(TableState.class);
    for (TableState state : TableState.values()) {
      byState.put(state, new ArrayList<>());
    }
    return byState;
  }

  /** Rows per second per table since the previous status; empty for a table it did not hold. */
  private static Map<String, OptionalDouble> rates(
      Optional<SyncStatus> previous, SyncStatus current) {
    Map<String, OptionalDouble> rates = new HashMap<>();
    Map<String, Long> rowsBefore = new HashMap<>();
    previous.ifPresent(
        status ->
            status.tables().forEach(table -> rowsBefore.put(table.sourceTable(), table.rows())));
    double seconds =
        previous
            .map(
                status ->
                    Math.max(0.001, Duration.between(status.at(), current.at()).toMillis() / 1e3))
            .orElse(0.0);
    for (SyncStatus.Table table : current.tables()) {
      Long before = rowsBefore.get(table.sourceTable());
      // deletes shrink a table: its rate is what it gained, never negative
      rates.put(
          table.sourceTable(),
          before == null
              ? OptionalDouble.empty()
              : OptionalDouble.of(Math.max(0, table.rows() - before) / seconds));
    }
    return rates;
  }

  /** The tables' rows per second together; empty when none of them has a rate yet. */
  private static OptionalDouble total(
      List<SyncStatus.Table> tables, Map<String, OptionalDouble> rates) {
    boolean any = false;
    double sum = 0;
    for (SyncStatus.Table table : tables) {
      OptionalDouble rate = rates.getOrDefault(table.sourceTable(), OptionalDouble.empty());
      if (rate.isPresent()) {
        any = true;
        sum += rate.getAsDouble();
      }
    }
    return any ? OptionalDouble.of(sum) : OptionalDouble.empty();
  }

  /** The largest lag among tables (they share one, but the status allows each its own). */
  private static OptionalLong largestLag(List<SyncStatus.Table> tables) {
    return tables.stream()
        .map(SyncStatus.Table::lagMillis)
        .filter(OptionalLong::isPresent)
        .mapToLong(OptionalLong::getAsLong)
        .max();
  }

  /** A live line cut to one column less than the width, so that no terminal wraps it. */
  private String fit(String line) {
    int columns = width - 1;
    return line.length() <= columns ? line : line.substring(0, columns - 3) + "...";
  }
}
