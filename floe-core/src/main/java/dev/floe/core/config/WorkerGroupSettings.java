package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One item of {@code keeper.optimizer.groups}: a group of workers that run optimize tasks, kept at
 * a target by the keeper. A table picks its group with {@link KeeperTableProperties#GROUP}.
 *
 * @param name how tables and the workers' registrations name the group; {@link #NAME} (compared
 *     ignoring case)
 * @param kind where the workers run and who starts them
 * @param target what the keeper keeps the group at: threads for {@link WorkerGroupKind#THREADS},
 *     workers (processes, Flink subtasks, registered workers) for the other kinds; at least 1
 * @param threadsPerWorker tasks each worker runs at once, at least 1; always 1 for the kinds that
 *     do not {@linkplain WorkerGroupKind#takesThreadsPerWorker() take it}
 * @param heapBytes the heap ({@code -Xmx}) of each process: present, at least {@link
 *     #MINIMUM_HEAP_BYTES}, exactly for {@link WorkerGroupKind#PROCESSES}
 * @param flinkAddress the base URL ({@code http(s)://HOST:PORT}, no path) of the REST endpoint of
 *     the Flink cluster's JobManager: present exactly for {@link WorkerGroupKind#FLINK}
 * @param java the Java executable (a path, or a name on the PATH) that runs each process; only for
 *     {@link WorkerGroupKind#PROCESSES}, where empty means the one running {@code floe serve}
 */
public record WorkerGroupSettings(
    String name,
    WorkerGroupKind kind,
    int target,
    int threadsPerWorker,
    Optional<Long> heapBytes,
    Optional<URI> flinkAddress,
    Optional<String> java) {

  /**
   * 1 to 64 letters, digits, {@code -} and {@code _}, starting with a letter or digit: the name
   * goes into table properties, metric labels and process names as it is.
   */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

  public static final int DEFAULT_THREADS_PER_WORKER = 1;

  /**
   * The default heap per thread of a process: one rewrite task completes within 512 MiB, even on a
   * partition with millions of equality-deleted keys (docs/optimize.md, bounded memory).
   */
  public static final long DEFAULT_HEAP_BYTES_PER_THREAD = 512L << 20;

  /** Below this a worker cannot hold Iceberg's readers and writers; such a heap is a typo. */
  public static final long MINIMUM_HEAP_BYTES = 64L << 20;

  public WorkerGroupSettings {
    requireNonNull(name, "name is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(heapBytes, "heapBytes is null");
    requireNonNull(flinkAddress, "flinkAddress is null");
    requireNonNull(java, "java is null");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "name '"
              + name
              + "' is not 1 to 64 letters, digits, '-' or '_' (first a letter or digit)");
    }
    if (target < 1) {
      throw new IllegalArgumentException("target is " + target + ", not at least 1");
    }
    if (threadsPerWorker < 1) {
      throw new IllegalArgumentException(
          "threadsPerWorker is " + threadsPerWorker + ", not at least 1");
    }
    if (threadsPerWorker != 1 && !kind.takesThreadsPerWorker()) {
      throw new IllegalArgumentException(
          "threadsPerWorker is " + threadsPerWorker + " for kind " + kind.configName() + ", not 1");
    }
    if (heapBytes.isPresent() != kind.takesHeap()) {
      throw new IllegalArgumentException(
          "heapBytes is "
              + heapBytes
              + " for kind "
              + kind.configName()
              + ": kind processes has a heap, no other kind has one");
    }
    if (heapBytes.isPresent() && heapBytes.get() < MINIMUM_HEAP_BYTES) {
      throw new IllegalArgumentException(
          "heapBytes is " + heapBytes.get() + ", not at least " + MINIMUM_HEAP_BYTES);
    }
    if (flinkAddress.isPresent() != kind.takesFlinkAddress()) {
      throw new IllegalArgumentException(
          "flinkAddress is "
              + flinkAddress
              + " for kind "
              + kind.configName()
              + ": kind flink has an address, no other kind has one");
    }
    if (java.isPresent() && !kind.takesHeap()) {
      throw new IllegalArgumentException(
          "java is " + java.get() + " for kind " + kind.configName() + ": only processes have one");
    }
    if (java.isPresent() && java.get().isBlank()) {
      throw new IllegalArgumentException("java is blank");
    }
  }

  /** The same group with its processes run by {@code javaCommand}. */
  public WorkerGroupSettings withJava(String javaCommand) {
    return new WorkerGroupSettings(
        name, kind, target, threadsPerWorker, heapBytes, flinkAddress, Optional.of(javaCommand));
  }

  /** Threads inside {@code floe serve}. */
  public static WorkerGroupSettings threads(String name, int threads) {
    return new WorkerGroupSettings(
        name,
        WorkerGroupKind.THREADS,
        threads,
        1,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /** {@code target} processes the keeper starts, each with the threads and heap given. */
  public static WorkerGroupSettings processes(
      String name, int target, int threadsPerWorker, long heapBytes) {
    return new WorkerGroupSettings(
        name,
        WorkerGroupKind.PROCESSES,
        target,
        threadsPerWorker,
        Optional.of(heapBytes),
        Optional.empty(),
        Optional.empty());
  }

  /** A Flink job of parallelism {@code target} on the cluster at {@code flinkAddress}. */
  public static WorkerGroupSettings flink(
      String name, int target, int threadsPerWorker, URI flinkAddress) {
    return new WorkerGroupSettings(
        name,
        WorkerGroupKind.FLINK,
        target,
        threadsPerWorker,
        Optional.empty(),
        Optional.of(flinkAddress),
        Optional.empty());
  }

  /** {@code target} workers someone else starts. */
  public static WorkerGroupSettings external(String name, int target) {
    return new WorkerGroupSettings(
        name,
        WorkerGroupKind.EXTERNAL,
        target,
        1,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /**
   * The heap of a process when none is given: {@link #DEFAULT_HEAP_BYTES_PER_THREAD} per thread.
   */
  public static long defaultHeapBytes(int threadsPerWorker) {
    return DEFAULT_HEAP_BYTES_PER_THREAD * threadsPerWorker;
  }

  /**
   * A Flink REST address as written in {@code floe.yaml}: {@code HOST:PORT} (meaning http), or
   * {@code http://HOST:PORT} or {@code https://HOST:PORT} with at most a trailing {@code /}; an
   * IPv6 host in brackets. Empty when the text is not one.
   *
   * @return the base URL, {@code http(s)://HOST:PORT}
   */
  public static Optional<URI> parseFlinkAddress(String text) {
    String value = text.trim();
    String scheme = "http";
    String lower = value.toLowerCase(Locale.ROOT);
    if (lower.startsWith("https://")) {
      scheme = "https";
      value = value.substring("https://".length());
    } else if (lower.startsWith("http://")) {
      value = value.substring("http://".length());
    }
    if (value.endsWith("/")) {
      value = value.substring(0, value.length() - 1);
    }
    if (value.isEmpty() || value.chars().anyMatch(Character::isWhitespace)) {
      return Optional.empty();
    }
    String base = scheme + "://";
    return ListenAddress.parse(value).map(address -> URI.create(base + address));
  }
}
