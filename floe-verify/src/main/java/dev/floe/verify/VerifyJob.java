package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.verify.SliceSizer;
import dev.floe.mysql.MySqlConnections;
import java.time.Duration;
import java.util.Optional;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One verification of a MySQL table against its lake table, with the load limits on the source:
 * what {@code floe verify} runs and what the keeper's scheduled verifications run. Callers give the
 * values as their users wrote them; the messages name the flag or config key through {@link Names}.
 */
public final class VerifyJob {

  /** How messages name each value: the flag of {@code floe verify}, or a config key. */
  public record Names(String table, String target, String threads, String maximumQueries) {
    public Names {
      requireNonNull(table, "table is null");
      requireNonNull(target, "target is null");
      requireNonNull(threads, "threads is null");
      requireNonNull(maximumQueries, "maximumQueries is null");
    }

    /** The names of {@code floe verify}'s flags. */
    public static final Names FLAGS =
        new Names("--table", "--target", "--threads", "--max-queries");
  }

  /**
   * The load limits: slices compared at once, MySQL queries at once (default: the threads), a pause
   * while the source's {@code Threads_running} is above a bound, the target time of one slice
   * query, and how long to wait for the server.
   */
  public record Limits(
      int threads,
      Optional<Integer> maximumQueries,
      long maximumThreadsRunning,
      Duration sliceTarget,
      Duration connectTimeout) {

    public Limits {
      requireNonNull(maximumQueries, "maximumQueries is null");
      requireNonNull(sliceTarget, "sliceTarget is null");
      requireNonNull(connectTimeout, "connectTimeout is null");
    }
  }

  private final Limits limits;
  private final VerifyOptions options;

  /**
   * @throws FloeException BAD_INPUT naming the value that is out of range
   */
  public VerifyJob(Limits limits, Names names) {
    this.limits = requireNonNull(limits, "limits is null");
    requireNonNull(names, "names is null");
    if (limits.threads() < 1) {
      throw FloeException.badInput(
          names.threads() + " must be at least 1, got " + limits.threads() + ".");
    }
    if (limits.maximumQueries().isPresent() && limits.maximumQueries().get() < 1) {
      throw FloeException.badInput(
          names.maximumQueries()
              + " must be at least 1, got "
              + limits.maximumQueries().get()
              + ".");
    }
    if (limits.sliceTarget().toMillis() < 1) {
      throw FloeException.badInput(
          "--slice-target must be at least 1 ms, got " + limits.sliceTarget().toMillis() + ".");
    }
    if (limits.connectTimeout().toSeconds() < 1) {
      throw FloeException.badInput(
          "--connect-timeout must be at least 1 second, got "
              + limits.connectTimeout().toSeconds()
              + ".");
    }
    this.options =
        VerifyOptions.defaults()
            .withThreads(limits.threads())
            .withMaximumQueries(limits.maximumQueries().orElse(limits.threads()))
            .withMaximumThreadsRunning(limits.maximumThreadsRunning())
            .withSliceSizer(
                new SliceSizer(
                    limits.sliceTarget(),
                    SliceSizer.DEFAULT.minimum(),
                    SliceSizer.DEFAULT.maximum()));
  }

  /** Runs the verification; blocks until it ends. */
  public VerifyResult run(VerifyRequest request, Catalog catalog, VerifyProgress progress) {
    return new Verifier(new MySqlConnections(limits.connectTimeout()), options)
        .verify(request, catalog, progress);
  }

  /**
   * Reads {@code DATABASE.TABLE}.
   *
   * @return the database and the table
   * @throws FloeException BAD_INPUT naming {@code option}
   */
  public static String[] sourceTable(String text, String option) {
    String[] names = text.split("\\.", 2);
    if (names.length != 2 || names[0].isBlank() || names[1].isBlank()) {
      throw FloeException.badInput(option + " must be DATABASE.TABLE, got '" + text + "'.");
    }
    return names;
  }

  /**
   * The lake table: {@code NAMESPACE.TABLE} as given, else the source's database and table.
   *
   * @throws FloeException BAD_INPUT naming {@code option}
   */
  public static TableIdentifier target(Optional<String> text, String[] source, String option) {
    if (text.isEmpty()) {
      return TableIdentifier.of(source[0], source[1]);
    }
    String target = text.get();
    if (!target.contains(".") || target.startsWith(".") || target.endsWith(".")) {
      throw FloeException.badInput(option + " must be NAMESPACE.TABLE, got '" + target + "'.");
    }
    return TableIdentifier.parse(target);
  }
}
