package dev.floe.server.workers;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Set;

/**
 * Runs the worker job of a {@code flink} group on a Flink cluster: lists, submits and cancels jobs
 * through the cluster's REST endpoint. The service does not know how a worker job is built (it
 * lives in floe-optimizer and needs Flink's client); the composition root gives it this. Every call
 * may block on the network: the {@link FlinkGroupSupervisor} calls it on its own thread.
 */
public interface FlinkJobLauncher {

  /** For a service built without Flink: every call fails, naming what is missing. */
  FlinkJobLauncher NONE = new None();

  /** The states in which a Flink job has ended for good (Flink's globally terminal states). */
  Set<String> ENDED = Set.of("FINISHED", "CANCELED", "FAILED");

  /**
   * A job on the cluster.
   *
   * @param id Flink's job id
   * @param name the job's name
   * @param state Flink's job state, e.g. {@code RUNNING}, {@code FAILED}
   */
  record Job(String id, String name, String state) {
    public Job {
      requireNonNull(id, "id is null");
      requireNonNull(name, "name is null");
      requireNonNull(state, "state is null");
    }

    public boolean ended() {
      return ENDED.contains(state);
    }
  }

  /**
   * What to submit: a job named {@code name} running {@code parallelism} workers of {@code group},
   * each with {@code threadsPerWorker} threads, serving the keeper at {@code server}.
   */
  record WorkerJob(String name, String group, int parallelism, int threadsPerWorker, URI server) {
    public WorkerJob {
      requireNonNull(name, "name is null");
      requireNonNull(group, "group is null");
      requireNonNull(server, "server is null");
    }
  }

  /**
   * The cluster's jobs whose name starts with {@code namePrefix}, ended ones included (as long as
   * the cluster remembers them).
   *
   * @throws IOException when the cluster cannot be reached or does not answer as Flink
   */
  List<Job> jobs(URI cluster, String namePrefix) throws IOException;

  /**
   * Submits the worker job and returns its id once the cluster accepted it.
   *
   * @throws IOException when the cluster cannot be reached or refuses the job
   */
  String submit(URI cluster, WorkerJob job) throws IOException;

  /**
   * Asks the cluster to cancel a job; returns without waiting for it to end.
   *
   * @throws IOException when the cluster cannot be reached or refuses
   */
  void cancel(URI cluster, String jobId) throws IOException;

  /** The launcher of a service that cannot submit Flink jobs. */
  final class None implements FlinkJobLauncher {
    private static final String WHY = "this keeper was built without a way to submit Flink jobs";

    private None() {}

    @Override
    public List<Job> jobs(URI cluster, String namePrefix) throws IOException {
      throw new IOException(WHY);
    }

    @Override
    public String submit(URI cluster, WorkerJob job) throws IOException {
      throw new IOException(WHY);
    }

    @Override
    public void cancel(URI cluster, String jobId) throws IOException {
      throw new IOException(WHY);
    }
  }
}
