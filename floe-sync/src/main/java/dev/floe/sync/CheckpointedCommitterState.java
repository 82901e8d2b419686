package dev.floe.sync;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.OperatorStateHandle;

/**
 * Reads, from a checkpoint or savepoint of the binlog job, the committer's state entries (list
 * state {@value #STATE}), so that a sync refuses a checkpoint it cannot restore before it starts
 * the job, with a message, instead of failing in the job.
 */
final class CheckpointedCommitterState {

  /** The committer's list state. */
  static final String STATE = "floe-committer";

  private CheckpointedCommitterState() {}

  /**
   * @param restorePoint a checkpoint or savepoint directory (holding {@code _metadata})
   * @throws IOException when the checkpoint cannot be read
   */
  static List<byte[]> read(Path restorePoint) throws IOException {
    List<byte[]> entries = new ArrayList<>();
    for (OperatorState operator :
        CheckpointedBinlogPosition.metadata(restorePoint).getOperatorStates()) {
      for (OperatorSubtaskState subtask : operator.getStates()) {
        for (OperatorStateHandle handle : subtask.getManagedOperatorState()) {
          OperatorStateHandle.StateMetaInfo committer =
              handle.getStateNameToPartitionOffsets().get(STATE);
          if (committer == null || committer.getOffsets().length == 0) {
            continue;
          }
          try (FSDataInputStream stream = handle.openInputStream()) {
            DataInputViewStreamWrapper view = new DataInputViewStreamWrapper(stream);
            for (long offset : committer.getOffsets()) {
              stream.seek(offset);
              entries.add(BytePrimitiveArraySerializer.INSTANCE.deserialize(view));
            }
          }
        }
      }
    }
    return entries;
  }

  /**
   * Checks that this Floe can read the committer state: version 1 and later are read in full;
   * version 0 (Java serialization) needs the tables' specs and is read when the job restores.
   *
   * @throws IOException when the checkpoint cannot be read
   * @throws IllegalStateException with the reason when the state is of a newer version, or not
   *     Floe's
   */
  static void requireReadable(Path restorePoint) throws IOException {
    for (byte[] entry : read(restorePoint)) {
      if (!CommitterStateSerializer.isJavaSerialized(entry)) {
        CommitterStateSerializer.read(entry);
      }
    }
  }
}
