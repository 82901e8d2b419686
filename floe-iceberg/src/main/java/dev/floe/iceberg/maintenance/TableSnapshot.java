package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.SnapshotFacts;
import dev.floe.core.maintenance.TableRef;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;

/**
 * One read of a table's metadata, turned into the facts the pure planners take: snapshots, refs,
 * the current metadata file and its log. Immutable; reading it does no I/O beyond the metadata
 * already loaded.
 */
final class TableSnapshot {

  private final String name;
  private final Table table;
  private final TableMetadata metadata;

  private TableSnapshot(String name, Table table, TableMetadata metadata) {
    this.name = requireNonNull(name, "name is null");
    this.table = requireNonNull(table, "table is null");
    this.metadata = requireNonNull(metadata, "metadata is null");
  }

  /** Refreshes the table and captures its current metadata. */
  static TableSnapshot refresh(String name, Table table) {
    table.refresh();
    return new TableSnapshot(name, table, metadataOf(table));
  }

  static TableMetadata metadataOf(Table table) {
    if (table instanceof HasTableOperations operations) {
      return operations.operations().current();
    }
    throw new IllegalArgumentException(
        "table " + table.name() + " does not expose its metadata (" + table.getClass() + ")");
  }

  String name() {
    return name;
  }

  Table table() {
    return table;
  }

  TableMetadata metadata() {
    return metadata;
  }

  Map<String, String> properties() {
    return metadata.properties();
  }

  List<SnapshotFacts> snapshots() {
    List<SnapshotFacts> facts = new ArrayList<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      facts.add(facts(snapshot));
    }
    return facts;
  }

  static SnapshotFacts facts(Snapshot snapshot) {
    return new SnapshotFacts(
        snapshot.snapshotId(),
        snapshot.parentId() == null ? OptionalLong.empty() : OptionalLong.of(snapshot.parentId()),
        snapshot.sequenceNumber(),
        Instant.ofEpochMilli(snapshot.timestampMillis()),
        snapshot.summary() == null ? Map.of() : snapshot.summary());
  }

  List<TableRef> refs() {
    List<TableRef> refs = new ArrayList<>();
    for (Map.Entry<String, SnapshotRef> ref : metadata.refs().entrySet()) {
      refs.add(new TableRef(ref.getKey(), ref.getValue().snapshotId(), ref.getValue().isBranch()));
    }
    return refs;
  }

  OptionalLong currentSnapshotId() {
    Snapshot current = metadata.currentSnapshot();
    return current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId());
  }

  String metadataLocation() {
    return metadata.metadataFileLocation();
  }

  /** Previous metadata files, oldest first. */
  List<String> metadataLog() {
    return metadata.previousFiles().stream().map(TableMetadata.MetadataLogEntry::file).toList();
  }
}
