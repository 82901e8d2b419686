package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.Secret;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.config.MaintenanceIntervals;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.server.KeeperService;
import dev.floe.server.http.KeeperHttpServer;
import dev.floe.server.maintenance.IcebergMaintenanceJobs;
import dev.floe.server.workers.WorkerLauncher;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code floe optimizer}'s bad input: what it refuses before and at registration. */
class OptimizerCommandTest {

  @TempDir Path directory;

  @Test
  void aServerThatIsNotAnHttpUrlIsRefused() {
    CliRun run = CliRun.run(directory, "optimizer", "--server", "keeper-host:8420");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.COULD_NOT_RUN);
    assertThat(run.err())
        .contains(
            "--server must be the keeper's http(s) URL, e.g. http://127.0.0.1:8420; got"
                + " 'keeper-host:8420'.");
  }

  @Test
  void aWrongTokenStopsTheWorkerWithAClearMessageAndNoSecret() {
    Secret token = Secret.of("the-right-token");
    KeeperSettings settings =
        KeeperSettings.builder()
            .listen(new ListenAddress("127.0.0.1", 0))
            .apiToken(Optional.of(token))
            .optimizer(new OptimizerSettings(1, 0.5, Duration.ofSeconds(30)))
            .maintenance(
                new MaintenanceIntervals(
                    Duration.ofHours(1), Duration.ofHours(1), Duration.ofDays(1)))
            .build();
    Path lake = directory.resolve("lake");
    try (KeeperService keeper =
        KeeperService.create(
            lake,
            CatalogSettings.embedded(),
            settings,
            Clock.systemUTC(),
            new IcebergMaintenanceJobs(),
            WorkerLauncher.NONE)) {
      keeper.start();
      try (KeeperHttpServer http =
          KeeperHttpServer.start(keeper, settings.listen(), settings.apiToken())) {
        CliRun run =
            CliRun.run(
                directory,
                Map.of(OptimizerCommand.TOKEN_VARIABLE, "a-wrong-token"),
                "--data-dir",
                "worker",
                "optimizer",
                "--server",
                "http://127.0.0.1:" + http.port());

        assertThat(run.exitCode()).isEqualTo(ExitCodes.COULD_NOT_RUN);
        assertThat(run.err())
            .contains("The keeper refused this worker")
            .contains("refused the token")
            .doesNotContain("a-wrong-token")
            .doesNotContain("the-right-token");
        // Only the keeper's own thread is a worker: the refused one never registered.
        assertThat(keeper.workerRegistry().all())
            .extracting(worker -> worker.kind())
            .containsExactly("threads");
      }
    }
  }
}
