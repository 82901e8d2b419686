package dev.floe.optimizer;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.iceberg.optimize.GroupResult;
import dev.floe.iceberg.optimize.GroupResultCodec;
import dev.floe.iceberg.optimize.PortableRewriter;
import dev.floe.iceberg.optimize.PortableTask;
import dev.floe.iceberg.optimize.PortableTaskCodec;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker outside the keeper ({@code floe optimizer}): registers with the keeper, polls for
 * file-group tasks of its group on {@code threads} threads, rewrites each with the table's files
 * (the same {@link PortableRewriter} the keeper's own threads run) and hands the written files
 * back; the keeper commits. A heartbeat keeps the worker and its leases alive. When the keeper
 * cannot be reached the worker retries with backoff (and says so once per outage); when the keeper
 * forgot it (restarted) it registers again. {@link #stop} hands the running tasks back, so another
 * worker takes them at once, and deregisters.
 */
public final class OptimizerWorker {

  private static final Logger LOG = LoggerFactory.getLogger(OptimizerWorker.class);
  private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /**
   * How the worker runs.
   *
   * @param server the keeper's base URL, e.g. {@code http://127.0.0.1:8420}
   * @param group the worker group it serves
   * @param threads tasks it runs at once
   * @param token the keeper's API token, when it has one
   * @param spillDirectory local directory for sort runs
   * @param fileIoSecrets FileIO properties the keeper never sends (credentials)
   * @param pollWait how long one poll waits for a task
   */
  public record Options(
      URI server,
      String group,
      int threads,
      Optional<Secret> token,
      Path spillDirectory,
      Map<String, String> fileIoSecrets,
      Duration pollWait) {

    public Options {
      requireNonNull(server, "server is null");
      requireNonNull(group, "group is null");
      requireNonNull(token, "token is null");
      requireNonNull(spillDirectory, "spillDirectory is null");
      fileIoSecrets = Map.copyOf(requireNonNull(fileIoSecrets, "fileIoSecrets is null"));
      requireNonNull(pollWait, "pollWait is null");
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be at least 1, got " + threads);
      }
    }
  }

  /** A task being rewritten on one of the threads. */
  private static final class Running {
    final String id;
    volatile boolean handedBack;

    Running(String id) {
      this.id = id;
    }
  }

  private final Options options;
  private final KeeperClient client;
  private final PortableRewriter rewriter = new PortableRewriter();
  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final AtomicLong completed = new AtomicLong();
  // Filled by run() while stop() may already iterate it (a signal during start-up).
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService heartbeats =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "floe-optimizer-heartbeat");
            thread.setDaemon(true);
            return thread;
          });
  private final Object registration = new Object();
  private volatile String workerId;
  private volatile Duration heartbeatInterval = Duration.ofSeconds(10);
  private volatile boolean stopping;
  private volatile RuntimeException fatal;
  private boolean unreachableSaid;

  public OptimizerWorker(Options options) {
    this.options = requireNonNull(options, "options is null");
    this.client = new KeeperClient(options.server(), options.token());
  }

  /**
   * Runs until {@link #stop} or a fatal refusal (a wrong token, a group the keeper does not have),
   * which is thrown.
   */
  public void run() throws InterruptedException {
    String id = registered();
    LOG.info(
        "worker {} of group {} serving {} with {} thread(s)",
        id,
        options.group(),
        options.server(),
        options.threads());
    for (int i = 0; i < options.threads(); i++) {
      Thread thread = new Thread(this::work, "floe-optimizer-" + i);
      threads.add(thread);
      thread.start();
    }
    long every = Math.max(100, heartbeatInterval.toMillis());
    heartbeats.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
    for (Thread thread : threads) {
      thread.join();
    }
    heartbeats.shutdownNow();
    if (fatal != null) {
      throw fatal;
    }
  }

  /** Tasks completed and accepted by the keeper so far. */
  public long completedTasks() {
    return completed.get();
  }

  /**
   * Stops: no new task is taken, the tasks being rewritten are handed back (another worker takes
   * them at once) and their output is deleted when done, and the worker deregisters. Waits up to
   * {@code grace} for the threads.
   */
  public void stop(Duration grace) {
    stopping = true;
    String id = workerId;
    for (Running task : running.values()) {
      task.handedBack = true;
      if (id != null) {
        try {
          client.release(id, task.id);
          LOG.info("handed task {} back to the keeper", task.id);
        } catch (KeeperClient.Unreachable | KeeperClient.UnknownWorker | RuntimeException e) {
          LOG.info(
              "could not hand task {} back ({}); its lease will expire", task.id, e.toString());
        }
      }
    }
    threads.forEach(Thread::interrupt);
    long deadline = System.nanoTime() + grace.toNanos();
    for (Thread thread : threads) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      try {
        thread.join(Math.max(1, left));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (id != null) {
      try {
        client.deregister(id);
      } catch (KeeperClient.Unreachable | KeeperClient.UnknownWorker | RuntimeException e) {
        LOG.debug("deregistering {} failed", id, e);
      }
    }
    heartbeats.shutdownNow();
  }

  private void work() {
    Duration backoff = FIRST_BACKOFF;
    while (!stopping) {
      String id = null;
      try {
        id = registered();
        Optional<KeeperClient.Task> task = client.poll(id, options.pollWait());
        reachable();
        backoff = FIRST_BACKOFF;
        if (task.isPresent() && !stopping) {
          run(id, task.get());
        } else if (task.isPresent()) {
          client.release(id, task.get().id());
        }
      } catch (KeeperClient.UnknownWorker e) {
        forget(id, e.getMessage());
      } catch (KeeperClient.Unreachable e) {
        unreachable(e);
        try {
          Thread.sleep(backoff.toMillis()); // the keeper is unreachable: retry with backoff
        } catch (InterruptedException stopped) {
          return;
        }
        backoff = next(backoff);
      } catch (KeeperClient.Unauthorized | KeeperClient.Refused e) {
        fatal = e;
        stopping = true;
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void run(String id, KeeperClient.Task leased) throws InterruptedException {
    Running task = new Running(leased.id());
    running.put(task.id, task);
    try {
      PortableTask portable = PortableTaskCodec.fromJson(leased.task());
      String result;
      GroupResult written;
      try (FileIO io = PortableRewriter.fileIo(portable.io(), options.fileIoSecrets())) {
        Table table = PortableRewriter.open(portable, io);
        try {
          written =
              rewriter.rewrite(portable, table, options.spillDirectory().resolve(leased.id()));
          result = GroupResultCodec.toJson(portable, written, table.specs());
        } catch (RuntimeException | LinkageError e) {
          // LinkageError: a class or native library missing on this machine (a worker job shipped
          // without a jar) fails the task with its reason instead of ending the worker's thread
          if (!task.handedBack) {
            LOG.warn("rewriting task {} of {} failed", leased.id(), portable.table(), e);
            report(() -> client.fail(id, leased.id(), describe(e)));
          }
          return;
        }
        if (task.handedBack) {
          // Released while rewriting: the keeper never sees this result, so its files go.
          delete(io, written);
          return;
        }
        switch (deliver(id, leased.id(), result)) {
          case ACCEPTED -> completed.incrementAndGet();
          case REFUSED ->
              LOG.info(
                  "the keeper refused the result of task {} of {} (its lease had gone to another"
                      + " worker); the keeper removes its files",
                  leased.id(),
                  portable.table());
          case UNKNOWN_WORKER -> {
            // A keeper that does not know this worker (restarted, or it forgot the worker) never
            // commits this result: nothing references the files, so they go.
            LOG.info(
                "the keeper no longer knows this worker; the result of task {} of {} is dropped"
                    + " and its files removed",
                leased.id(),
                portable.table());
            delete(io, written);
          }
          case UNDELIVERED -> {
            // The keeper may have committed it before the answer was lost: the files stay, and
            // orphan cleanup removes them if no snapshot took them.
          }
        }
      }
    } catch (RuntimeException | LinkageError e) {
      LOG.warn("task {} cannot be run", leased.id(), e);
      report(() -> client.fail(id, leased.id(), describe(e)));
    } finally {
      running.remove(task.id);
    }
  }

  /** What became of a result handed in. */
  private enum Delivery {
    ACCEPTED,
    REFUSED,
    UNKNOWN_WORKER,
    UNDELIVERED
  }

  /** Hands in a result, retrying while the keeper is unreachable, for up to two minutes. */
  private Delivery deliver(String id, String taskId, String result) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    Duration backoff = FIRST_BACKOFF;
    while (true) {
      try {
        return client.complete(id, taskId, result) ? Delivery.ACCEPTED : Delivery.REFUSED;
      } catch (KeeperClient.UnknownWorker e) {
        forget(id, e.getMessage());
        return Delivery.UNKNOWN_WORKER;
      } catch (KeeperClient.Unreachable e) {
        if (System.nanoTime() > deadline) {
          LOG.warn(
              "giving up handing in task {}: {}; its files are left to orphan cleanup",
              taskId,
              e.getMessage());
          return Delivery.UNDELIVERED;
        }
        Thread.sleep(backoff.toMillis()); // the keeper is unreachable: retry with backoff
        backoff = next(backoff);
      }
    }
  }

  private void heartbeat() {
    String id = workerId;
    if (id == null) {
      return;
    }
    List<String> ids = new ArrayList<>(running.keySet());
    try {
      KeeperClient.Heartbeat answer = client.heartbeat(id, ids);
      for (String lost : answer.lost()) {
        LOG.info("the keeper no longer leases task {} to this worker", lost);
      }
      reachable();
    } catch (KeeperClient.UnknownWorker e) {
      forget(id, e.getMessage());
    } catch (KeeperClient.Unreachable e) {
      unreachable(e);
    } catch (RuntimeException e) {
      LOG.warn("heartbeat failed", e);
    }
  }

  /** The worker's id, registering (again) first when needed, retrying with backoff. */
  private String registered() throws InterruptedException {
    synchronized (registration) {
      Duration backoff = FIRST_BACKOFF;
      while (workerId == null) {
        if (stopping) {
          throw new InterruptedException("stopping");
        }
        try {
          KeeperClient.Registration registered =
              client.register(options.group(), options.threads(), pid(), host());
          heartbeatInterval = registered.heartbeatInterval();
          workerId = registered.workerId();
          reachable();
        } catch (KeeperClient.Unreachable e) {
          unreachable(e);
          Thread.sleep(backoff.toMillis()); // the keeper is unreachable: retry with backoff
          backoff = next(backoff);
        } catch (KeeperClient.UnknownWorker e) {
          throw new IllegalStateException("registering answered 'unknown worker'", e);
        }
      }
      return workerId;
    }
  }

  /**
   * Registers again on the next call when the keeper did not know {@code refused}. A refusal of an
   * earlier id (a task leased from a keeper that has since restarted, handed in after this worker
   * registered with the new one) leaves the current registration alone.
   */
  private void forget(String refused, String why) {
    synchronized (registration) {
      if (workerId != null && workerId.equals(refused)) {
        LOG.info("the keeper forgot worker {} ({}); registering again", workerId, why);
        workerId = null;
      }
    }
  }

  private synchronized void unreachable(KeeperClient.Unreachable e) {
    if (!unreachableSaid) {
      LOG.warn("{}; retrying with backoff (up to {})", e.getMessage(), MAX_BACKOFF);
      unreachableSaid = true;
    }
  }

  private synchronized void reachable() {
    if (unreachableSaid) {
      LOG.info("the keeper at {} answers again", options.server());
      unreachableSaid = false;
    }
  }

  private interface Call {
    void run() throws KeeperClient.Unreachable, KeeperClient.UnknownWorker;
  }

  private void report(Call call) {
    try {
      call.run();
    } catch (KeeperClient.Unreachable | KeeperClient.UnknownWorker | RuntimeException e) {
      LOG.info("could not report to the keeper ({}); the task's lease will expire", e.toString());
    }
  }

  private static void delete(FileIO io, GroupResult result) {
    result.added().forEach(file -> io.deleteFile(file.location()));
    result.addedDeletes().forEach(file -> io.deleteFile(file.location()));
  }

  private static Duration next(Duration backoff) {
    Duration doubled = backoff.multipliedBy(2);
    return doubled.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : doubled;
  }

  private static String describe(Throwable e) {
    return e.getMessage() == null
        ? e.toString()
        : e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private static long pid() {
    return ProcessHandle.current().pid();
  }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }
}
