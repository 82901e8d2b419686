package dev.floe.sql;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.MiniClusterJobClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One local Flink cluster for a whole SQL session. Flink's default local executor starts and stops
 * a mini cluster for every job (seconds each); this one starts once, in the background while the
 * planner loads, and runs every query of the session. Thread-safe.
 */
final class SqlCluster implements PipelineExecutorServiceLoader, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SqlCluster.class);

  private static final String EXECUTOR_NAME = "floe-sql-session";

  private final CompletableFuture<MiniCluster> cluster;

  /** Starts the cluster on a background thread; jobs wait for it. */
  SqlCluster(Configuration configuration, int slots) {
    MiniClusterConfiguration clusterConfiguration =
        new MiniClusterConfiguration.Builder()
            .withRandomPorts()
            .setConfiguration(configuration)
            .setNumTaskManagers(1)
            .setNumSlotsPerTaskManager(slots)
            .build();
    this.cluster = new CompletableFuture<>();
    Thread starter =
        new Thread(
            () -> {
              long begin = System.nanoTime();
              MiniCluster started = new MiniCluster(clusterConfiguration);
              try {
                started.start();
                LOG.debug(
                    "local Flink cluster started in {} ms",
                    (System.nanoTime() - begin) / 1_000_000);
                cluster.complete(started);
              } catch (Exception | Error e) {
                cluster.completeExceptionally(e);
              }
            },
            "floe-sql-cluster-start");
    starter.setDaemon(true);
    starter.start();
  }

  private MiniCluster cluster() throws Exception {
    try {
      return cluster.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  @Override
  public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
    return new PipelineExecutorFactory() {
      @Override
      public String getName() {
        return EXECUTOR_NAME;
      }

      @Override
      public boolean isCompatibleWith(Configuration configuration) {
        return true;
      }

      @Override
      public PipelineExecutor getExecutor(Configuration configuration) {
        return (pipeline, jobConfiguration, classLoader) -> {
          MiniCluster miniCluster = cluster();
          JobGraph jobGraph =
              PipelineExecutorUtils.getJobGraph(pipeline, jobConfiguration, classLoader);
          return miniCluster
              .submitJob(jobGraph)
              .thenApply(
                  submitted ->
                      (JobClient)
                          new MiniClusterJobClient(
                              submitted.getJobID(),
                              miniCluster,
                              classLoader,
                              MiniClusterJobClient.JobFinalizationBehavior.NOTHING));
        };
      }
    };
  }

  @Override
  public Stream<String> getExecutorNames() {
    return Stream.of(EXECUTOR_NAME);
  }

  /** Stops the cluster (waiting for it to have started first). */
  @Override
  public void close() throws Exception {
    MiniCluster miniCluster;
    try {
      miniCluster = cluster();
    } catch (Exception e) {
      return; // it never started: nothing to stop
    }
    miniCluster.close();
  }
}
