package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import dev.floe.testing.S3Server;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sync's state directory on S3-compatible storage (the harness's s3proxy), through Hadoop's S3A
 * under Flink's file-system API, configured from the catalog's S3 settings as floe.yaml's
 * catalog.s3-* keys give them.
 */
class StateDirectoryOnS3ITCase {

  private static S3Server s3;

  @BeforeAll
  static void start() {
    s3 = S3Server.start();
    s3.createBucket("lake");
    StateDirectory.useHadoopSettings(settings(s3.secretAccessKey()));
  }

  /** The catalog's S3 settings, as floe.yaml's catalog.s3-* keys give them. */
  private static Map<String, String> settings(String secret) {
    return Map.of(
        "s3.endpoint",
        s3.endpoint(),
        "client.region",
        S3Server.REGION,
        "s3.path-style-access",
        "true",
        "s3.access-key-id",
        s3.accessKeyId(),
        "s3.secret-access-key",
        secret);
  }

  @AfterAll
  static void stop() {
    StateDirectory.useHadoopSettings(Map.of());
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void aMissingBucketOrRefusedCredentialsAreReportedBeforeAnyWork() {
    assertThatThrownBy(
            () ->
                StateDirectory.of("s3://no-such-bucket/floe/sync", "sync.state-dir")
                    .requireReachable("sync.state-dir"))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith(
            "Cannot reach the sync's state directory s3://no-such-bucket/floe/sync"
                + " (sync.state-dir): ")
        .hasMessageContaining("no-such-bucket")
        .hasMessageEndingWith(
            "Check sync.state-dir in floe.yaml and that its bucket exists, the S3 endpoint"
                + " (catalog.s3-endpoint) is reachable from this machine and accepts the"
                + " credentials (catalog.s3-access-key-id, catalog.s3-secret-access-key)."
                + " Nothing was changed.");

    String wrongSecret = "wrong-" + s3.secretAccessKey().substring(6);
    StateDirectory.useHadoopSettings(settings(wrongSecret));
    try {
      assertThatThrownBy(
              () ->
                  StateDirectory.of("s3://lake/floe/sync", "sync.state-dir")
                      .requireReachable("sync.state-dir"))
          .isInstanceOf(FloeException.class)
          .hasMessageStartingWith(
              "Cannot reach the sync's state directory s3://lake/floe/sync (sync.state-dir): ")
          .message()
          .doesNotContain(wrongSecret)
          .doesNotContain(s3.secretAccessKey());
    } finally {
      StateDirectory.useHadoopSettings(settings(s3.secretAccessKey()));
    }
  }

  @Test
  void stateIsWrittenReplacedListedAndDeletedInTheBucket() throws Exception {
    StateDirectory state = StateDirectory.of("s3://lake/floe/sync", "sync.state-dir").resolve("x");
    state.requireReachable("sync.state-dir");
    assertThat(state.readReplaced("snapshot.properties")).isEmpty();
    assertThat(state.latestRestorePoint()).isEmpty();

    state.replace("snapshot.properties", "one");
    state.replace("snapshot.properties", "two");

    assertThat(state.readReplaced("snapshot.properties")).contains("two");
    assertThat(s3.dataDirectory().resolve("lake/floe/sync/x/snapshot.properties"))
        .as("the file in the bucket")
        .hasContent("two");
    assertThat(s3.dataDirectory().resolve("lake/floe/sync/x/snapshot.properties.next"))
        .doesNotExist();

    org.apache.flink.core.fs.FileSystem fileSystem = state.path().getFileSystem();
    try (var out =
        fileSystem.create(
            state.path("checkpoints/0f1e/chk-3/_metadata"),
            org.apache.flink.core.fs.FileSystem.WriteMode.OVERWRITE)) {
      out.write(new byte[] {1, 2, 3});
    }
    assertThat(state.latestRestorePoint().map(StateDirectory::display))
        .contains("s3://lake/floe/sync/x/checkpoints/0f1e/chk-3");

    state.delete("checkpoints");
    state.delete("snapshot.properties");
    assertThat(state.latestRestorePoint()).isEmpty();
    assertThat(state.readReplaced("snapshot.properties")).isEqualTo(Optional.empty());
  }
}
