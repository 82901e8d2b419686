package dev.floe.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FlinkClusterTest {

  @Test
  void twoTaskManagersRegisterAKilledOneIsDroppedAndAReplacementRegisters() throws Exception {
    Path directory;
    try (FlinkCluster cluster = FlinkCluster.builder().start()) {
      directory = cluster.directory();
      List<FlinkCluster.TaskManager> started = cluster.taskManagers();
      assertThat(started)
          .extracting(FlinkCluster.TaskManager::id)
          .containsExactly("taskmanager-1", "taskmanager-2");
      assertThat(cluster.registeredTaskManagers())
          .isEqualTo(Map.of("taskmanager-1", 2, "taskmanager-2", 2));
      assertThat(cluster.getJson("/overview").path("slots-total").asInt()).isEqualTo(4);

      List<Long> pids = new ArrayList<>();
      pids.add(cluster.jobManagerPid());
      started.forEach(taskManager -> pids.add(taskManager.pid()));
      assertThat(pids).doesNotHaveDuplicates().doesNotContain(ProcessHandle.current().pid());

      // Only Flink's jars: the JobManager says so itself.
      JsonNode environment = cluster.getJson("/jobmanager/environment");
      List<String> classpath = new ArrayList<>();
      environment.path("classpath").forEach(entry -> classpath.add(entry.asText()));
      assertThat(classpath)
          .isNotEmpty()
          .allSatisfy(
              entry ->
                  assertThat(Path.of(entry).getFileName().toString())
                      .matches(
                          "(flink-|log4j-|slf4j-|commons-|kryo|minlog|objenesis|snakeyaml"
                              + "|javassist|snappy|lz4|async-profiler|chill|jsr305|icu4j).*\\.jar"));

      FlinkCluster.TaskManager victim = started.get(0);
      cluster.kill(victim);
      assertThat(victim.isAlive()).isFalse();
      cluster.awaitRegisteredTaskManagers(Set.of("taskmanager-2"), Duration.ofSeconds(60));

      FlinkCluster.TaskManager replacement = cluster.startTaskManager();
      assertThat(replacement.id()).isEqualTo("taskmanager-3");
      assertThat(cluster.registeredTaskManagers())
          .isEqualTo(Map.of("taskmanager-2", 2, "taskmanager-3", 2));
      assertThat(cluster.taskManagers()).containsExactly(started.get(1), replacement);
      // Started as taskmanager.sh starts one: JVM memory options and -D settings from Flink's
      // own computation (what BashJavaUtils prints for the script).
      assertThat(commandLine(replacement.pid()))
          .contains("-XX:MaxDirectMemorySize=", "-XX:MaxMetaspaceSize=", "-Xmx", "-Xms")
          .contains("taskmanager.cpu.cores=", "taskmanager.memory.task.heap.size=")
          .contains("org.apache.flink.runtime.taskexecutor.TaskManagerRunner --configDir");
      assertThat(commandLine(cluster.jobManagerPid()))
          .contains("-Xmx", "-XX:MaxMetaspaceSize=", "--add-opens=java.base/java.util=ALL-UNNAMED")
          .contains("org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
      assertThat(Files.readString(cluster.directory().resolve("conf/config.yaml")))
          .contains("rest.port: '" + cluster.restPort() + "'");
    }
    assertThat(directory).doesNotExist();
  }

  /** The whole command line (ProcessHandle.Info cuts long ones short). */
  private static String commandLine(long pid) throws Exception {
    return Files.readString(Path.of("/proc/" + pid + "/cmdline")).replace('\0', ' ');
  }
}
