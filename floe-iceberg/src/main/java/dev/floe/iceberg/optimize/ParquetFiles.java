package dev.floe.iceberg.optimize;

import org.apache.iceberg.ContentFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;

/** Reads Parquet data and delete files as generic records, in file order. */
final class ParquetFiles {

  private ParquetFiles() {}

  /** The file's rows, projected to {@code projection}; row i is at position i. */
  static CloseableIterable<Record> read(Table table, ContentFile<?> file, Schema projection) {
    OptimizeTableCheck.checkFormat(table.name(), file.format());
    return FormatModelRegistry.<Record, Schema>readBuilder(
            file.format(),
            Record.class,
            table.io().newInputFile(file.location(), file.fileSizeInBytes()))
        .project(projection)
        .build();
  }
}
