package dev.floe.iceberg.optimize;

import dev.floe.iceberg.ForwardingTableOperations;
import java.util.function.IntConsumer;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * A streaming writer that always commits first, for a number of commits: before each of the first
 * {@code races} commits made through these operations, another writer's commit lands (a real commit
 * to the same table through other operations), so the catalog rejects this one as stale, as it does
 * when a writer commits several times a second. The other writer is told which race it is (1 for
 * the first).
 */
final class RacingWriterOperations extends ForwardingTableOperations {

  private final IntConsumer otherWriter;
  private int races;
  private int lost;

  RacingWriterOperations(TableOperations delegate, IntConsumer otherWriter, int races) {
    super(delegate);
    this.otherWriter = otherWriter;
    this.races = races;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    if (races > 0) {
      races--;
      lost++;
      otherWriter.accept(lost);
    }
    super.commit(base, metadata);
  }

  /** How many of this table's commits another writer's commit came before. */
  int lost() {
    return lost;
  }
}
