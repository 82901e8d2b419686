package dev.floe.optimizer.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Which classpath entries the worker job ships to a Flink cluster. */
class OptimizerWorkerJobTest {

  @Test
  void theWorkersModulesAndRuntimeDependenciesAreNeededAndNothingElse() {
    assertThat(OptimizerWorkerJob.needs(Path.of("/src/floe/floe-optimizer/target/classes")))
        .isTrue();
    assertThat(OptimizerWorkerJob.needs(Path.of("/src/floe/floe-core/target/classes"))).isTrue();
    assertThat(OptimizerWorkerJob.needs(Path.of("/opt/floe/lib/floe-iceberg-0.1.0-SNAPSHOT.jar")))
        .isTrue();
    assertThat(
            OptimizerWorkerJob.needs(
                Path.of("/m2/org/apache/iceberg/iceberg-core/1.11.0/iceberg-core-1.11.0.jar")))
        .isTrue();

    assertThat(OptimizerWorkerJob.needs(Path.of("/src/floe/floe-sync/target/classes"))).isFalse();
    assertThat(OptimizerWorkerJob.needs(Path.of("/opt/floe/lib/floe-server-0.1.0-SNAPSHOT.jar")))
        .isFalse();
    assertThat(OptimizerWorkerJob.needs(Path.of("/m2/flink-table-planner_2.12-1.20.4.jar")))
        .isFalse();
    assertThat(OptimizerWorkerJob.needs(Path.of("/m2/flink-streaming-java-1.20.4.jar"))).isFalse();
    assertThat(OptimizerWorkerJob.needs(Path.of("/m2/mysql-connector-j-8.4.0.jar"))).isFalse();
    assertThat(OptimizerWorkerJob.needs(Path.of("/m2/junit-jupiter-api-5.14.1.jar"))).isFalse();
  }
}
