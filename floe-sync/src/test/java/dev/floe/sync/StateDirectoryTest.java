package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirectoryTest {

  @TempDir Path directory;

  @Test
  void aPathOrAFileUriIsLocalAndShowsAsAPlainPath() {
    StateDirectory plain = StateDirectory.of(directory + "/sync/", "sync.state-dir");
    StateDirectory uri = StateDirectory.of(directory.toUri().toString(), "sync.state-dir");

    assertThat(plain.isLocal()).isTrue();
    assertThat(plain.localPath()).contains(directory.resolve("sync"));
    assertThat(plain.toString()).isEqualTo(directory.resolve("sync").toString());
    assertThat(plain.resolve("orders-sync").localPath())
        .contains(directory.resolve("sync/orders-sync"));
    assertThat(uri).isEqualTo(StateDirectory.local(directory));
    assertThat(StateDirectory.of("relative/state", "sync.state-dir").localPath())
        .contains(Path.of("relative/state").toAbsolutePath());
  }

  @Test
  void anHdfsUriKeepsItsNameNodeAndShowsAsItsUri() {
    StateDirectory hdfs = StateDirectory.of("hdfs://namenode:8020/floe//sync/", "sync.state-dir");

    assertThat(hdfs.isLocal()).isFalse();
    assertThat(hdfs.localPath()).isEmpty();
    assertThat(hdfs.uri()).isEqualTo(URI.create("hdfs://namenode:8020/floe/sync"));
    StateDirectory sync = hdfs.resolve("mysql-db_3306");
    assertThat(sync.toString()).isEqualTo("hdfs://namenode:8020/floe/sync/mysql-db_3306");
    assertThat(sync.path("checkpoints").toString())
        .isEqualTo("hdfs://namenode:8020/floe/sync/mysql-db_3306/checkpoints");
    assertThat(StateDirectory.display(sync.path("savepoints/savepoint-1")))
        .isEqualTo("hdfs://namenode:8020/floe/sync/mysql-db_3306/savepoints/savepoint-1");
    assertThat(StateDirectory.display(StateDirectory.local(directory).path("checkpoints/x/chk-1")))
        .isEqualTo(directory.resolve("checkpoints/x/chk-1").toString());
    // the job-jars of a development build stay on this machine
    assertThat(SyncRunner.jobJarsDirectory(sync, "mysql-db_3306"))
        .isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), "floe-job-jars", "mysql-db_3306"));
    assertThat(SyncRunner.jobJarsDirectory(StateDirectory.local(directory), "x"))
        .isEqualTo(directory.resolve("job-jars"));
  }

  @Test
  void anS3UriNamesABucketAndAPath() {
    StateDirectory s3 = StateDirectory.of("s3://lake/floe//state/", "sync.state-dir");

    assertThat(s3.isLocal()).isFalse();
    assertThat(s3.uri()).isEqualTo(URI.create("s3://lake/floe/state"));
    assertThat(s3.resolve("x").path("checkpoints").toString())
        .isEqualTo("s3://lake/floe/state/x/checkpoints");
    assertThat(StateDirectory.of("s3a://lake/x", "sync.state-dir").uri())
        .isEqualTo(URI.create("s3a://lake/x"));
  }

  @Test
  void theCatalogsS3SettingsBecomeS3asUnlessHadoopPropertiesSetThem() {
    org.apache.flink.configuration.Configuration settings =
        StateDirectory.flinkFileSystemSettings(
            java.util.Map.of(
                "s3.endpoint", "http://127.0.0.1:9000",
                "client.region", "eu-west-1",
                "s3.path-style-access", "true",
                "s3.access-key-id", "key",
                "s3.secret-access-key", "secret",
                "hadoop.fs.s3a.endpoint.region", "us-east-2",
                "hadoop.dfs.replication", "1"));

    java.util.Map<String, String> map = settings.toMap();
    assertThat(map)
        .containsEntry("fs.allowed-fallback-filesystems", "s3;s3a")
        .containsEntry("flink.hadoop.fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem")
        .containsEntry("flink.hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000")
        .containsEntry("flink.hadoop.fs.s3a.path.style.access", "true")
        .containsEntry("flink.hadoop.fs.s3a.access.key", "key")
        .containsEntry("flink.hadoop.fs.s3a.secret.key", "secret")
        .containsEntry("flink.hadoop.fs.s3a.endpoint.region", "us-east-2")
        .containsEntry("flink.hadoop.dfs.replication", "1");
  }

  @Test
  void anotherObjectStoreOrAUriWithoutAPathIsRefusedNamingTheKeyAndTheValue() {
    assertThatThrownBy(() -> StateDirectory.of("gs://lake/floe-state", "sync.state-dir"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "sync.state-dir 'gs://lake/floe-state' is on an object store (gs://), where Floe"
                + " cannot keep a sync's checkpoints: Flink writes to object stores only"
                + " through its file-system plugins, which carry their own Hadoop and AWS classes"
                + " and cannot share Floe's classpath. Put the state on S3 (s3://BUCKET/PATH), on"
                + " HDFS (hdfs://NAMENODE:PORT/PATH) or on a directory every machine mounts at the"
                + " same path.")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.BAD_INPUT);
    assertThatThrownBy(() -> StateDirectory.of("OSS://lake/x", "sync.state-dir"))
        .hasMessageContaining("is on an object store (oss://)");
    assertThatThrownBy(() -> StateDirectory.of("s3://lake", "sync.state-dir"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "sync.state-dir 's3://lake' has no path in its bucket. Write it as s3://BUCKET/PATH,"
                + " e.g. s3://lake/floe/sync.");
    assertThatThrownBy(() -> StateDirectory.of("s3:///floe", "sync.state-dir"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "sync.state-dir 's3:///floe' names no bucket. Write it as s3://BUCKET/PATH, e.g."
                + " s3://lake/floe/sync.");
    assertThatThrownBy(() -> StateDirectory.of("hdfs://namenode:8020", "sync.state-dir"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "sync.state-dir 'hdfs://namenode:8020' has no absolute path. Write it as"
                + " hdfs://HOST:PORT/PATH, e.g. hdfs://namenode:8020/floe/sync.");
    assertThatThrownBy(() -> StateDirectory.of("hdfs://name node/x", "sync.state-dir"))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith("sync.state-dir 'hdfs://name node/x' is not a path or a URI (");
  }

  @Test
  void theNewestMetadataFileNamesTheRestorePointAndVanishedDirectoriesAreSkipped()
      throws Exception {
    StateDirectory state = StateDirectory.local(directory.resolve("sync"));
    assertThat(state.latestRestorePoint()).as("no directory yet").isEmpty();
    Path older = metadata("sync/checkpoints/0f1e/chk-7", Instant.parse("2026-01-01T00:00:00Z"));
    Path newer =
        metadata("sync/savepoints/savepoint-0f1e-1", Instant.parse("2026-01-02T00:00:00Z"));
    metadata(
        "sync/checkpoints/0f1e/chk-9/deeper/than/flink", Instant.parse("2026-01-03T00:00:00Z"));
    Files.createDirectories(directory.resolve("sync/checkpoints/0f1e/shared"));

    assertThat(state.latestRestorePoint().map(StateDirectory::display))
        .contains(newer.getParent().toString());
    Files.setLastModifiedTime(older, FileTime.from(Instant.parse("2026-01-05T00:00:00Z")));
    assertThat(state.latestRestorePoint().map(StateDirectory::display))
        .contains(older.getParent().toString());
  }

  @Test
  void onATieOfModificationTimesASavepointThenTheHigherCheckpointIsTheRestorePoint()
      throws Exception {
    // S3 keeps modification times to the second: a stop's savepoint often ties with the
    // checkpoint before it.
    StateDirectory state = StateDirectory.local(directory.resolve("sync"));
    Instant second = Instant.parse("2026-01-01T00:00:00Z");
    metadata("sync/checkpoints/0f1e/chk-9", second);
    Path higher = metadata("sync/checkpoints/0f1e/chk-10", second);
    assertThat(state.latestRestorePoint().map(StateDirectory::display))
        .contains(higher.getParent().toString());
    Path savepoint = metadata("sync/savepoints/savepoint-0f1e-1", second);
    assertThat(state.latestRestorePoint().map(StateDirectory::display))
        .contains(savepoint.getParent().toString());
  }

  @Test
  void aReplacedFileIsReadBackAndACrashBeforeTheRenameLeavesTheNewText() throws Exception {
    StateDirectory state = StateDirectory.local(directory.resolve("a/b"));
    assertThat(state.readReplaced("snapshot.properties")).isEmpty();

    state.replace("snapshot.properties", "one");
    state.replace("snapshot.properties", "two");

    assertThat(state.readReplaced("snapshot.properties")).contains("two");
    assertThat(Files.exists(directory.resolve("a/b/snapshot.properties.next"))).isFalse();
    // a crash on HDFS after the old file was deleted, before the new one was renamed
    Files.delete(directory.resolve("a/b/snapshot.properties"));
    Files.writeString(
        directory.resolve("a/b/snapshot.properties.next"), "three", StandardCharsets.UTF_8);
    assertThat(state.readReplaced("snapshot.properties")).contains("three");

    state.delete("snapshot.properties.next");
    Files.createDirectories(directory.resolve("a/b/checkpoints/job/chk-1"));
    state.delete("checkpoints");
    state.delete("nothing-there");
    assertThat(state.readReplaced("snapshot.properties")).isEqualTo(Optional.empty());
    assertThat(Files.exists(directory.resolve("a/b/checkpoints"))).isFalse();
  }

  @Test
  void aNameNodeThatDoesNotAnswerIsReportedBeforeAnyWork() {
    StateDirectory state = StateDirectory.of("hdfs://127.0.0.1:1/floe/sync", "sync.state-dir");

    assertThatThrownBy(() -> state.resolve("s").requireReachable("sync.state-dir"))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith(
            "Cannot reach the sync's state directory hdfs://127.0.0.1:1/floe/sync/s"
                + " (sync.state-dir): ")
        .hasMessageContaining("Connection refused")
        .hasMessageEndingWith(
            ". Check sync.state-dir in floe.yaml and that its file system (the NameNode) runs and"
                + " is reachable from this machine. Nothing was changed.")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.SOURCE_UNAVAILABLE);
  }

  private Path metadata(String relative, Instant modified) throws Exception {
    Path file = directory.resolve(relative).resolve("_metadata");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "metadata");
    Files.setLastModifiedTime(file, FileTime.from(modified));
    return file;
  }
}
