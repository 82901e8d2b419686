package dev.floe.core.config;

import java.util.Locale;

/** Where the workers of a group ({@code keeper.optimizer.groups}) run, and who starts them. */
public enum WorkerGroupKind {
  /** Threads inside {@code floe serve}; the target is the number of threads. */
  THREADS,
  /** {@code floe optimizer} processes on the keeper's machine, started and supervised by it. */
  PROCESSES,
  /** One Flink job on a Flink cluster, submitted by the keeper, of parallelism = the target. */
  FLINK,
  /** Workers someone else starts; the keeper only checks that the target have registered. */
  EXTERNAL;

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Whether the keeper starts the workers with a thread count of its choosing: not for threads (the
   * target is the thread count) nor external (each worker says its own when it registers).
   */
  public boolean takesThreadsPerWorker() {
    return this == PROCESSES || this == FLINK;
  }

  /** Whether the keeper chooses the workers' heap: only for the processes it starts itself. */
  public boolean takesHeap() {
    return this == PROCESSES;
  }

  /** Whether the group needs the address of a Flink cluster's REST endpoint. */
  public boolean takesFlinkAddress() {
    return this == FLINK;
  }
}
