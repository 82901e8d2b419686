package dev.floe.iceberg.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.maintenance.ListedFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileListingTest {

  @TempDir Path directory;

  @Test
  void localLocationsAreWalkedWithTheSpellingHadoopGives() throws Exception {
    Path data = Files.createDirectories(directory.resolve("t").resolve("data").resolve("p=a%20b"));
    Files.writeString(data.resolve("f1.parquet"), "12345");
    Files.writeString(data.resolve(".f1.parquet.crc"), "crc"); // Hadoop's, hidden by its listing
    Files.writeString(directory.resolve("t").resolve("v1.metadata.json"), "{}");

    try (HadoopFileIO io = new HadoopFileIO(new Configuration())) {
      for (String location :
          List.of(
              "file:" + directory.resolve("t"),
              "file://" + directory.resolve("t"),
              directory.resolve("t").toString())) {
        List<ListedFile> listed = FileListing.list("db.t", io, location);
        assertThat(listed)
            .extracting(ListedFile::location)
            .as(location)
            .containsExactlyInAnyOrder(
                "file:" + data.resolve("f1.parquet"),
                "file:" + directory.resolve("t").resolve("v1.metadata.json"));
        // the same as Iceberg's own listing through Hadoop
        List<String> hadoop = new java.util.ArrayList<>();
        io.listPrefix("file:" + directory.resolve("t")).forEach(f -> hadoop.add(f.location()));
        assertThat(listed)
            .extracting(ListedFile::location)
            .containsExactlyInAnyOrderElementsOf(hadoop);
      }
      assertThat(FileListing.list("db.t", io, "file:" + directory.resolve("gone"))).isEmpty();
    }
  }

  @Test
  void onlyLocalSchemesAreWalked() {
    assertThat(FileListing.localPath("file:/a/b")).contains(Path.of("/a/b"));
    assertThat(FileListing.localPath("file:///a/b")).contains(Path.of("/a/b"));
    assertThat(FileListing.localPath("file://localhost/a/b")).contains(Path.of("/a/b"));
    assertThat(FileListing.localPath("/a/b")).contains(Path.of("/a/b"));
    assertThat(FileListing.localPath("file://otherhost/a/b")).isEmpty();
    assertThat(FileListing.localPath("s3://bucket/a")).isEmpty();
    assertThat(FileListing.localPath("hdfs://nn:8020/a")).isEmpty();
    assertThat(FileListing.localPath("FILE:/a")).isEqualTo(Optional.of(Path.of("/a")));
  }
}
