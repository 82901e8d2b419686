package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prints a sync's progress at each call of {@link #print}: reads the {@link SyncProgress}, plans
 * the lines with a {@link ProgressView} against the previous report, and writes them. In live mode
 * the new block replaces the one printed before it (ANSI cursor movement); a line another thread
 * writes to the same terminal between two reports (a warning on stderr) may be partly drawn over.
 *
 * <p>Thread-safe; never throws (progress must not stop the sync): a status that cannot be read is
 * logged and the next report starts a new block below the warning.
 */
public final class ProgressPrinter {

  private static final Logger LOG = LoggerFactory.getLogger(ProgressPrinter.class);

  private final SyncProgress progress;
  private final ProgressView view;
  private final PrintWriter out;
  private Optional<SyncStatus> previous = Optional.empty();
  private int printedLines;

  public ProgressPrinter(SyncProgress progress, ProgressView view, PrintWriter out) {
    this.progress = requireNonNull(progress, "progress is null");
    this.view = requireNonNull(view, "view is null");
    this.out = requireNonNull(out, "out is null");
  }

  /** Reads the sync's status and prints what changed (log) or the whole block again (live). */
  public synchronized void print() {
    SyncStatus status;
    try {
      status = progress.status();
    } catch (RuntimeException e) {
      LOG.warn("cannot report progress: {}", e.getMessage());
      printedLines = 0;
      return;
    }
    List<String> lines = view.render(previous, status);
    if (view.mode() == ProgressView.Mode.LIVE) {
      out.print(ProgressView.redraw(printedLines, lines));
      printedLines = lines.size();
    } else {
      lines.forEach(out::println);
    }
    out.flush();
    previous = Optional.of(status);
  }
}
