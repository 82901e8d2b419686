package dev.floe.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkerGroupSettingsTest {

  private static final URI FLINK = URI.create("http://flink-jm:8081");

  @Test
  void flinkAddressIsHostAndPortOrAnHttpUrl() {
    assertThat(WorkerGroupSettings.parseFlinkAddress("flink-jm:8081")).contains(FLINK);
    assertThat(WorkerGroupSettings.parseFlinkAddress(" HTTP://flink-jm:8081/ ")).contains(FLINK);
    assertThat(WorkerGroupSettings.parseFlinkAddress("https://10.0.0.5:8443"))
        .contains(URI.create("https://10.0.0.5:8443"));
    assertThat(WorkerGroupSettings.parseFlinkAddress("[::1]:8081"))
        .contains(URI.create("http://[::1]:8081"));
    for (String text :
        List.of(
            "",
            "flink-jm",
            "http://",
            "flink-jm:70000",
            "::1:8081",
            "ftp://flink-jm:8081",
            "http://flink-jm:8081/jobs",
            "http:// flink-jm:8081",
            "user@flink-jm:8081")) {
      assertThat(WorkerGroupSettings.parseFlinkAddress(text)).as(text).isEmpty();
    }
  }

  @Test
  void factoriesFillWhatTheirKindTakes() {
    assertThat(WorkerGroupSettings.threads("serve", 4))
        .isEqualTo(
            new WorkerGroupSettings(
                "serve",
                WorkerGroupKind.THREADS,
                4,
                1,
                Optional.empty(),
                Optional.empty(),
                Optional.empty()));
    assertThat(
            WorkerGroupSettings.processes("local", 2, 3, WorkerGroupSettings.defaultHeapBytes(3)))
        .isEqualTo(
            new WorkerGroupSettings(
                "local",
                WorkerGroupKind.PROCESSES,
                2,
                3,
                Optional.of(1536L << 20),
                Optional.empty(),
                Optional.empty()));
    assertThat(WorkerGroupSettings.flink("cluster", 4, 2, FLINK).flinkAddress()).contains(FLINK);
    assertThat(WorkerGroupSettings.external("elsewhere", 3).threadsPerWorker()).isEqualTo(1);
  }

  @Test
  void inconsistentGroupsAreRefused() {
    assertThatThrownBy(() -> WorkerGroupSettings.threads("my group", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "name 'my group' is not 1 to 64 letters, digits, '-' or '_' (first a letter or digit)");
    assertThatThrownBy(() -> WorkerGroupSettings.external("elsewhere", 0))
        .hasMessage("target is 0, not at least 1");
    assertThatThrownBy(
            () ->
                new WorkerGroupSettings(
                    "serve",
                    WorkerGroupKind.THREADS,
                    2,
                    2,
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty()))
        .hasMessage("threadsPerWorker is 2 for kind threads, not 1");
    assertThatThrownBy(
            () ->
                new WorkerGroupSettings(
                    "local",
                    WorkerGroupKind.PROCESSES,
                    2,
                    1,
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty()))
        .hasMessage(
            "heapBytes is Optional.empty for kind processes: kind processes has a heap, no other"
                + " kind has one");
    assertThatThrownBy(() -> WorkerGroupSettings.processes("local", 2, 1, 1L << 20))
        .hasMessage("heapBytes is 1048576, not at least 67108864");
    assertThatThrownBy(
            () ->
                new WorkerGroupSettings(
                    "elsewhere",
                    WorkerGroupKind.EXTERNAL,
                    2,
                    1,
                    Optional.empty(),
                    Optional.of(FLINK),
                    Optional.empty()))
        .hasMessage(
            "flinkAddress is Optional[http://flink-jm:8081] for kind external: kind flink has an"
                + " address, no other kind has one");
    assertThatThrownBy(() -> WorkerGroupSettings.external("elsewhere", 2).withJava("java"))
        .hasMessage("java is java for kind external: only processes have one");
    assertThat(
            WorkerGroupSettings.processes("local", 1, 1, 512L << 20)
                .withJava("/opt/jdk/bin/java")
                .java())
        .contains("/opt/jdk/bin/java");
  }
}
