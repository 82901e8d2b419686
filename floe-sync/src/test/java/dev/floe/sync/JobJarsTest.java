package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobJarsTest {

  @TempDir Path directory;

  @Test
  void keepsClasspathOrderLeavesOutFlinkAndPacksDirectories() throws Exception {
    Path cdc = Files.createFile(directory.resolve("flink-connector-mysql-cdc-3.2.0.jar"));
    Path runtime = Files.createFile(directory.resolve("flink-runtime-1.20.4.jar"));
    Path debezium = Files.createFile(directory.resolve("debezium-core-1.9.8.Final.jar"));
    Path cdcCommon = Files.createFile(directory.resolve("flink-cdc-common-3.2.0.jar"));
    Path classes = directory.resolve("classes");
    Files.createDirectories(classes.resolve("dev/floe"));
    Files.writeString(classes.resolve("dev/floe/A.class"), "bytes");
    Path missing = directory.resolve("gone.jar");

    List<Path> jars =
        JobJars.of(
            String.join(
                File.pathSeparator,
                cdc.toString(),
                runtime.toString(),
                classes.toString(),
                debezium.toString(),
                missing.toString(),
                cdcCommon.toString()),
            directory.resolve("work"));

    assertThat(jars)
        .containsExactly(cdc, directory.resolve("work/classes-0.jar"), debezium, cdcCommon);
    try (JarFile jar = new JarFile(jars.get(1).toFile())) {
      assertThat(new String(jar.getInputStream(jar.getEntry("dev/floe/A.class")).readAllBytes()))
          .isEqualTo("bytes");
    }
  }

  @Test
  void flinkModulesAreProvidedButConnectorsAreNot() {
    assertThat(JobJars.providedByFlink("flink-streaming-java-1.20.4.jar")).isTrue();
    assertThat(JobJars.providedByFlink("flink-shaded-guava-31.1-jre-17.0.jar")).isTrue();
    assertThat(JobJars.providedByFlink("flink-connector-base-1.20.4.jar")).isFalse();
    assertThat(JobJars.providedByFlink("flink-cdc-runtime-3.2.0.jar")).isFalse();
    assertThat(JobJars.providedByFlink("iceberg-flink-1.20-1.11.0.jar")).isFalse();
  }
}
