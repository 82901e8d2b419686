package dev.floe.sync;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.cdc.connectors.mysql.source.offset.BinlogOffset;
import org.apache.flink.cdc.connectors.mysql.source.split.MySqlSplit;
import org.apache.flink.cdc.connectors.mysql.source.split.MySqlSplitSerializer;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.OperatorStateHandle;

/**
 * Reads, from a checkpoint or savepoint of the binlog job, the binlog position its CDC source
 * resumes reading from: the binlog split in the source readers' state ({@code SourceReaderState},
 * one entry per split, written by Flink's SourceOperator with the connector's split serializer).
 * Empty when no reader held the binlog split at that checkpoint: the restored source then starts
 * from the configured start position again.
 */
final class CheckpointedBinlogPosition {

  /** The list state Flink's SourceOperator keeps its reader's splits in. */
  static final String READER_STATE = "SourceReaderState";

  private CheckpointedBinlogPosition() {}

  /**
   * @param restorePoint a checkpoint or savepoint directory (holding {@code _metadata}), on any
   *     file system Flink reaches
   * @throws IOException when the checkpoint cannot be read
   */
  static Optional<BinlogPosition> read(Path restorePoint) throws IOException {
    for (OperatorState operator : metadata(restorePoint).getOperatorStates()) {
      for (OperatorSubtaskState subtask : operator.getStates()) {
        for (OperatorStateHandle handle : subtask.getManagedOperatorState()) {
          Optional<BinlogPosition> position = binlogSplitPosition(handle);
          if (position.isPresent()) {
            return position;
          }
        }
      }
    }
    return Optional.empty();
  }

  /** The checkpoint's metadata ({@code _metadata}), with inline state and state file handles. */
  static CheckpointMetadata metadata(Path restorePoint) throws IOException {
    Path metadata = new Path(restorePoint, "_metadata");
    try (InputStream file = metadata.getFileSystem().open(metadata);
        DataInputStream in = new DataInputStream(file)) {
      return Checkpoints.loadCheckpointMetadata(
          in, CheckpointedBinlogPosition.class.getClassLoader(), restorePoint.toString());
    }
  }

  private static Optional<BinlogPosition> binlogSplitPosition(OperatorStateHandle handle)
      throws IOException {
    Map<String, OperatorStateHandle.StateMetaInfo> states = handle.getStateNameToPartitionOffsets();
    OperatorStateHandle.StateMetaInfo splits = states.get(READER_STATE);
    if (splits == null || splits.getOffsets().length == 0) {
      return Optional.empty();
    }
    try (FSDataInputStream stream = handle.openInputStream()) {
      DataInputViewStreamWrapper view = new DataInputViewStreamWrapper(stream);
      for (long offset : splits.getOffsets()) {
        stream.seek(offset);
        byte[] bytes = BytePrimitiveArraySerializer.INSTANCE.deserialize(view);
        MySqlSplit split =
            SimpleVersionedSerialization.readVersionAndDeSerialize(
                MySqlSplitSerializer.INSTANCE, bytes);
        if (split.isBinlogSplit()) {
          BinlogOffset offsetInBinlog = split.asBinlogSplit().getStartingOffset();
          if (offsetInBinlog.getFilename() != null && !offsetInBinlog.getFilename().isEmpty()) {
            return Optional.of(
                new BinlogPosition(offsetInBinlog.getFilename(), offsetInBinlog.getPosition()));
          }
        }
      }
    }
    return Optional.empty();
  }
}
