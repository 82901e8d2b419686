package dev.floe.optimizer.flink;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.optimizer.OptimizerWorker;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.functions.source.RichParallelSourceFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker job's only operator: each parallel subtask runs one {@link OptimizerWorker} against
 * the keeper, in its group, until the job is cancelled; then the worker hands its running tasks
 * back and deregisters (another worker takes them at once). It emits nothing: the keeper commits
 * the results. Spill files go to a directory of the subtask under the TaskManager's temporary
 * directory, removed when the subtask ends.
 *
 * <p>A {@code SourceFunction}, deprecated in favour of the Source API: a worker has no splits,
 * offsets or checkpoints for a split enumerator and reader to carry, and the older interface runs
 * one blocking loop per subtask with a cancel hook, which is exactly what a worker is.
 */
@SuppressWarnings("deprecation")
public final class OptimizerWorkerSource extends RichParallelSourceFunction<Void> {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(OptimizerWorkerSource.class);

  /** How long a cancelled worker may take to hand its tasks back and deregister. */
  static final Duration STOP_GRACE = Duration.ofSeconds(10);

  private static final Duration POLL_WAIT = Duration.ofSeconds(5);

  private final String server;
  private final String group;
  private final int threads;
  // The worker token, never the API token: the cluster stores and shows the job graph.
  private final String workerToken;
  private transient volatile OptimizerWorker worker;
  private transient volatile boolean cancelled;

  /**
   * @param workerToken the keeper's {@link dev.floe.core.WorkerToken}, when it has a token
   */
  public OptimizerWorkerSource(
      URI server, String group, int threads, Optional<Secret> workerToken) {
    this.server = requireNonNull(server, "server is null").toString();
    this.group = requireNonNull(group, "group is null");
    this.threads = threads;
    this.workerToken =
        requireNonNull(workerToken, "workerToken is null").map(Secret::reveal).orElse(null);
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
  }

  @Override
  public void run(SourceContext<Void> context) throws Exception {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    Path spill = Files.createTempDirectory("floe-optimizer-" + group + "-" + subtask + "-");
    try {
      worker =
          new OptimizerWorker(
              new OptimizerWorker.Options(
                  URI.create(server),
                  group,
                  threads,
                  Optional.ofNullable(workerToken).map(Secret::of),
                  spill,
                  Map.of(),
                  POLL_WAIT));
      if (cancelled) {
        return;
      }
      worker.run();
    } finally {
      delete(spill);
    }
  }

  @Override
  public void cancel() {
    cancelled = true;
    OptimizerWorker running = worker;
    if (running != null) {
      running.stop(STOP_GRACE);
    }
  }

  private static void delete(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      LOG.warn("cannot remove the spill directory {}: {}", directory, e.toString());
    }
  }
}
