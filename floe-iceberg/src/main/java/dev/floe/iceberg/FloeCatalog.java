package dev.floe.iceberg;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;

/**
 * An open Iceberg catalog and the properties it was opened with (passwords included: never print
 * {@link #properties()} unmasked). Closing it closes the catalog's connections.
 */
public final class FloeCatalog implements AutoCloseable {

  private final Catalog catalog;
  private final Map<String, String> properties;

  FloeCatalog(Catalog catalog, Map<String, String> properties) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.properties = Map.copyOf(requireNonNull(properties, "properties is null"));
  }

  public Catalog catalog() {
    return catalog;
  }

  public String name() {
    return catalog.name();
  }

  /** The Iceberg catalog properties, as any Iceberg client would need them. */
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public void close() {
    if (catalog instanceof Closeable closeable) {
      try {
        closeable.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot close catalog " + catalog.name(), e);
      }
    }
  }
}
