package dev.floe.iceberg.optimize;

import dev.floe.iceberg.ForwardingTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitStateUnknownException;

/**
 * A hand-written fault at our boundary with the catalog: the next commit lands, then reports its
 * state as unknown (as when the connection drops after the catalog accepted it).
 */
final class CommitStateUnknownOperations extends ForwardingTableOperations {

  private boolean armed = true;

  CommitStateUnknownOperations(TableOperations delegate) {
    super(delegate);
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    super.commit(base, metadata);
    if (armed) {
      armed = false;
      throw new CommitStateUnknownException(new RuntimeException("connection reset"));
    }
  }
}
