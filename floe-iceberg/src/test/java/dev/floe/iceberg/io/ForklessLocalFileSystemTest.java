package dev.floe.iceberg.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForklessLocalFileSystemTest {

  @TempDir Path directory;

  @Test
  void floesConfigurationWritesLocalFilesThroughTheForklessFileSystem() throws Exception {
    // newInstance: the JVM-wide cache may hold a file system another test made with defaults
    try (FileSystem fileSystem = open(HadoopConf.create())) {
      assertThat(fileSystem).isInstanceOf(ForklessLocalFileSystem.class);
      assertThat(((ForklessLocalFileSystem) fileSystem).getRawFileSystem())
          .isInstanceOf(ForklessLocalFileSystem.Raw.class);
    }
  }

  @Test
  void filesAndDirectoriesGetHadoopsPermissionsAndChecksums() throws Exception {
    Path file = directory.resolve("table/metadata/00000-a.metadata.json");
    try (FileSystem fileSystem = open(HadoopConf.create())) {
      // as Iceberg's HadoopOutputFile creates a file: under directories that do not exist yet
      try (OutputStream out = fileSystem.create(hadoopPath(file), false)) {
        out.write("{\"format-version\":2}".getBytes(StandardCharsets.UTF_8));
      }
      assertThat(mode(file)).isEqualTo("rw-r--r--"); // 0666 under Hadoop's default umask 022
      assertThat(mode(file.getParent())).isEqualTo("rwxr-xr-x");
      assertThat(mode(directory.resolve("table"))).isEqualTo("rwxr-xr-x");
      // the checksum file other Hadoop clients expect, and a read that verifies it
      assertThat(file.resolveSibling(".00000-a.metadata.json.crc")).exists();
      try (FSDataInputStream in = fileSystem.open(hadoopPath(file))) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
            .isEqualTo("{\"format-version\":2}");
      }
    }
  }

  @Test
  void theUmaskInTheConfigurationApplies() throws Exception {
    Configuration configuration = HadoopConf.create();
    configuration.set("fs.permissions.umask-mode", "077");
    Path file = directory.resolve("private/data.parquet");
    try (FileSystem fileSystem = open(configuration)) {
      fileSystem.create(hadoopPath(file), false).close();
    }
    assertThat(mode(file)).isEqualTo("rw-------");
    assertThat(mode(file.getParent())).isEqualTo("rwx------");
  }

  @Test
  void modeBitsMapToPosixPermissions() {
    assertThat(PosixFilePermissions.toString(ForklessLocalFileSystem.posix(0754)))
        .isEqualTo("rwxr-xr--");
    assertThat(PosixFilePermissions.toString(ForklessLocalFileSystem.posix(01640)))
        .isEqualTo("rw-r-----"); // the sticky bit has no java.nio permission
    assertThat(ForklessLocalFileSystem.posix(0)).isEmpty();
  }

  private static FileSystem open(Configuration configuration) throws Exception {
    return FileSystem.newInstance(URI.create("file:///"), configuration);
  }

  private static org.apache.hadoop.fs.Path hadoopPath(Path file) {
    return new org.apache.hadoop.fs.Path(file.toUri());
  }

  private static String mode(Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }
}
