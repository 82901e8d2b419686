package dev.floe.bench;

import dev.floe.testing.MariaDbServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Wall time and CPU seconds of one measured phase: this JVM's (all threads, GC and JIT included)
 * and the MariaDB server's (user + system, from /proc). On a shared machine CPU seconds judge a
 * change better than wall time, which other processes stretch.
 */
final class CpuMeter {

  /** What one phase took. */
  record Phase(double seconds, double jvmCpu, double mysqlCpu) {}

  private final MariaDbServer server;
  private final long started;
  private final double jvmBefore;
  private final double mysqlBefore;

  private CpuMeter(MariaDbServer server) {
    this.server = server;
    this.jvmBefore = jvmCpuSeconds();
    this.mysqlBefore = mysqlCpuSeconds(server);
    this.started = System.nanoTime();
  }

  /** Starts measuring now. */
  static CpuMeter start(MariaDbServer server) {
    return new CpuMeter(server);
  }

  /** What the phase took from {@link #start} until now. */
  Phase stop() {
    double seconds = (System.nanoTime() - started) / 1e9;
    return new Phase(seconds, jvmCpuSeconds() - jvmBefore, mysqlCpuSeconds(server) - mysqlBefore);
  }

  /** CPU time of this JVM (all threads, GC and JIT included). */
  static double jvmCpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  /**
   * CPU time of the MariaDB server process (user + system), from /proc; NaN elsewhere or without
   * one.
   */
  static double mysqlCpuSeconds(MariaDbServer server) {
    if (server == null) {
      return Double.NaN;
    }
    try {
      String pid = Files.readString(server.directory().resolve("mariadb.pid")).trim();
      return processCpuSeconds(Long.parseLong(pid));
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** CPU time of a process (user + system), from /proc; NaN elsewhere or when it has ended. */
  static double processCpuSeconds(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // fields after the command: state is 0, utime is 11, stime is 12 (clock ticks, 100/s)
      return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /**
   * Waits (at most {@code limitSeconds}) until this JVM and MariaDB are idle: less than a tenth of
   * a core each over half a second, so work left over from one phase (a local Flink cluster
   * shutting down, purge threads) does not land in the next.
   */
  static void awaitIdle(MariaDbServer server, double limitSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + (long) (limitSeconds * 1e9);
    while (System.nanoTime() < deadline) {
      double jvm = jvmCpuSeconds();
      double mysql = mysqlCpuSeconds(server);
      Thread.sleep(500); // the sampling interval of the idleness check
      if (jvmCpuSeconds() - jvm < 0.05 && !(mysqlCpuSeconds(server) - mysql >= 0.05)) {
        return;
      }
    }
  }
}
