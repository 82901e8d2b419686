package dev.floe.mysql;

import static java.util.Objects.requireNonNull;

import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.source.SourceReport;
import dev.floe.core.source.SourceRequirements;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Checks a MySQL/MariaDB source for what real-time sync needs: connects, reads the facts, and hands
 * them to the pure {@link SourceRequirements}. Used by {@code floe doctor} and at the start of
 * every sync job.
 */
public final class SourceDoctor {

  private final MySqlConnections connections;
  private final SourceFactsReader reader;
  private final SourceRequirements requirements;

  public SourceDoctor(
      MySqlConnections connections, SourceFactsReader reader, SourceRequirements requirements) {
    this.connections = requireNonNull(connections, "connections is null");
    this.reader = requireNonNull(reader, "reader is null");
    this.requirements = requireNonNull(requirements, "requirements is null");
  }

  /**
   * Runs every check. A source that cannot be reached gives a report with that one failure; it does
   * not throw.
   */
  public SourceReport check(MySqlSourceAddress address) {
    String source = address.toString();
    try (Connection connection = connections.connect(address)) {
      return requirements.check(source, reader.read(connection, address.database()));
    } catch (SQLException e) {
      MySqlConnections.Failure failure = MySqlConnections.explain(address, e);
      return requirements.unreachable(source, failure.problem(), failure.fix());
    }
  }
}
