package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.InternalWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.FileAppenderFactory;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;

/**
 * Parquet data files written from records that hold Iceberg's internal values (a timestamp as
 * {@code Long} microseconds, a date as {@code Integer} days; see {@link SnapshotColumns}) with
 * Iceberg's {@code InternalWriter}: the same files, settings and metrics as Iceberg's generic
 * appenders ({@code GenericAppenderFactory}) write, without converting a {@code LocalDateTime} per
 * value. Data files only: the snapshot copy writes no deletes.
 */
final class InternalParquetAppenders implements FileAppenderFactory<Record> {

  private final Schema schema;
  private final PartitionSpec spec;
  private final Map<String, String> properties;

  InternalParquetAppenders(Schema schema, PartitionSpec spec, Map<String, String> properties) {
    this.schema = requireNonNull(schema, "schema is null");
    this.spec = requireNonNull(spec, "spec is null");
    this.properties = Map.copyOf(requireNonNull(properties, "properties is null"));
  }

  @Override
  public FileAppender<Record> newAppender(OutputFile file, FileFormat format) {
    return newAppender(EncryptedFiles.plainAsEncryptedOutput(file), format);
  }

  @Override
  public FileAppender<Record> newAppender(EncryptedOutputFile file, FileFormat format) {
    if (format != FileFormat.PARQUET) {
      throw new UnsupportedOperationException("internal values are written to Parquet only");
    }
    try {
      return Parquet.write(file)
          .schema(schema)
          .createWriterFunc(InternalWriter::createWriter)
          .setAll(properties)
          .metricsConfig(MetricsConfig.fromProperties(properties))
          .overwrite()
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public DataWriter<Record> newDataWriter(
      EncryptedOutputFile file, FileFormat format, StructLike partition) {
    return new DataWriter<>(
        newAppender(file, format),
        format,
        file.encryptingOutputFile().location(),
        spec,
        partition,
        file.keyMetadata());
  }

  @Override
  public EqualityDeleteWriter<Record> newEqDeleteWriter(
      EncryptedOutputFile file, FileFormat format, StructLike partition) {
    throw new UnsupportedOperationException("the snapshot copy writes no deletes");
  }

  @Override
  public PositionDeleteWriter<Record> newPosDeleteWriter(
      EncryptedOutputFile file, FileFormat format, StructLike partition) {
    throw new UnsupportedOperationException("the snapshot copy writes no deletes");
  }
}
