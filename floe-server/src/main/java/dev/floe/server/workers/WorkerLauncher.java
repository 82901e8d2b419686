package dev.floe.server.workers;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * Starts one worker process of a {@code processes} group. The service does not know the command
 * line of a worker ({@code floe optimizer} lives in the CLI); the composition root gives it this.
 */
@FunctionalInterface
public interface WorkerLauncher {

  /** A launcher for a service that starts no processes (tests, embedded use): every start fails. */
  WorkerLauncher NONE =
      (group, server, number) -> {
        throw new IOException("this keeper was built without a way to start worker processes");
      };

  /**
   * Starts a worker of the group serving the keeper at {@code server}.
   *
   * @param number counts the group's starts from 1, for log names
   * @throws IOException when the process cannot be started at all (e.g. no such java)
   */
  Launched launch(WorkerGroups.Group group, URI server, int number) throws IOException;

  /** A started process, as the supervisor watches it. */
  interface Launched {
    long pid();

    boolean isAlive();

    /** Its exit code once it ended. */
    OptionalInt exitCode();

    /** Asks it to stop (SIGTERM): a worker hands its tasks back first. */
    void stop();

    /** Kills it (SIGKILL). */
    void kill();

    /** Waits up to {@code timeout} for it to end; whether it did. */
    boolean awaitExit(Duration timeout) throws InterruptedException;

    /** The last lines it wrote and where its output is, for messages. */
    String outputTail();
  }
}
