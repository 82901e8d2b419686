package dev.floe.iceberg.maintenance;

import dev.floe.core.maintenance.FileLocation;

/** Compares locations by normalized path, whatever their spelling. */
final class FileLocationsForTest {

  private FileLocationsForTest() {}

  static String path(String location) {
    return FileLocation.parse(location).path();
  }
}
