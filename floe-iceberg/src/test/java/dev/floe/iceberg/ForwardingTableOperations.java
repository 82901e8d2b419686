package dev.floe.iceberg;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Passes every call to a real catalog's table operations; a test overrides {@link #commit} to add a
 * fault or a concurrent writer at our boundary with the catalog.
 */
public class ForwardingTableOperations implements TableOperations {

  private final TableOperations delegate;

  public ForwardingTableOperations(TableOperations delegate) {
    this.delegate = delegate;
  }

  @Override
  public TableMetadata current() {
    return delegate.current();
  }

  @Override
  public TableMetadata refresh() {
    return delegate.refresh();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    delegate.commit(base, metadata);
  }

  @Override
  public FileIO io() {
    return delegate.io();
  }

  @Override
  public EncryptionManager encryption() {
    return delegate.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return delegate.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    return delegate.locationProvider();
  }

  @Override
  public long newSnapshotId() {
    return delegate.newSnapshotId();
  }
}
