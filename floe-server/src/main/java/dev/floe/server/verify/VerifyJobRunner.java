package dev.floe.server.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.config.VerificationSettings;
import dev.floe.core.verify.VerifyReport;
import dev.floe.mysql.MySqlConnections;
import dev.floe.mysql.ServerTimeZone;
import dev.floe.verify.VerifyJob;
import dev.floe.verify.VerifyProgress;
import dev.floe.verify.VerifyRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Optional;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Runs a {@code keeper.verifications} item through {@link VerifyJob}, the job {@code floe verify}
 * runs, with its default load limits ({@code floe verify}'s defaults: 2 threads, a pause while the
 * source's {@code Threads_running} is above 32, 1 s slice queries, a 10 s connect timeout), against
 * the top-level catalog. A verification without {@code time-zone} is scheduled in the zone its
 * source server reports ({@link ServerTimeZone}).
 */
public final class VerifyJobRunner implements VerificationRunner {

  static final VerifyJob.Limits LIMITS =
      new VerifyJob.Limits(2, Optional.empty(), 32, Duration.ofSeconds(1), Duration.ofSeconds(10));

  private static final VerifyJob.Names NAMES =
      new VerifyJob.Names(
          "keeper.verifications[].table",
          "keeper.verifications[].target",
          "the keeper's verification threads",
          "the keeper's verification queries");

  private final Catalog catalog;
  private final VerifyJob job = new VerifyJob(LIMITS, NAMES);
  private final MySqlConnections connections = new MySqlConnections(LIMITS.connectTimeout());

  public VerifyJobRunner(Catalog catalog) {
    this.catalog = requireNonNull(catalog, "catalog is null");
  }

  @Override
  public VerifyReport run(VerificationSettings verification) {
    String option = "keeper.verifications '" + verification.name() + "'";
    String[] source = VerifyJob.sourceTable(verification.table(), option + " table");
    TableIdentifier target = VerifyJob.target(verification.target(), source, option + " target");
    return job.run(
            new VerifyRequest(
                verification.source(),
                source[0],
                source[1],
                target,
                verification.cutoff(),
                verification.window(),
                verification.timeColumn()),
            catalog,
            VerifyProgress.NONE)
        .report();
  }

  @Override
  public ZoneId sourceTimeZone(VerificationSettings verification) {
    try (Connection connection = connections.open(verification.source())) {
      return ServerTimeZone.read(connection);
    } catch (SQLException e) {
      throw MySqlConnections.explain(verification.source(), e).toException(e);
    }
  }
}
