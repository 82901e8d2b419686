package dev.floe.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the private database servers of this package share: free ports, helper commands, the
 * watchdog, the install scripts, log tails and directory removal.
 */
final class ServerProcesses {

  private static final long COMMAND_TIMEOUT_MINUTES = 2;
  private static final long INSTALL_TIMEOUT_MINUTES = 15;
  private static final String INSTALL_LIBRARY = "lib/apt-install.sh";

  private ServerProcesses() {}

  /** A loopback port that was free a moment ago; servers retry when another process takes it. */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port", e);
    }
  }

  /**
   * Runs a command to completion with its output in {@code log}.
   *
   * @throws IllegalStateException when it fails or runs longer than 2 minutes; the message holds
   *     the tail of the log
   */
  static void run(ProcessBuilder command, Path log) {
    String name = command.command().get(0);
    try {
      Process process = command.redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!process.waitFor(COMMAND_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            name + " did not finish within " + COMMAND_TIMEOUT_MINUTES + " minutes");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            name + " failed (exit " + process.exitValue() + "):\n" + tail(log, 200));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + name, e);
    }
  }

  /**
   * A small shell process that stops the server and removes its directory when this JVM dies
   * without closing it (e.g. a test JVM killed on timeout), so no stray servers pile up. It sends
   * {@code stopSignal} (a name such as {@code TERM}), then {@code KILL} after 30 s. The directory
   * is deleted only when the JVM is gone: a server that dies by itself leaves its logs for the JVM
   * to report (and its {@code close()} to delete).
   */
  static Process startWatchdog(
      long serverPid, String stopSignal, Optional<Path> directoryToDelete) {
    long jvmPid = ProcessHandle.current().pid();
    String script =
        "while kill -0 "
            + jvmPid
            + " 2>/dev/null && kill -0 "
            + serverPid
            + " 2>/dev/null; do sleep 1; done; kill -"
            + stopSignal
            + " "
            + serverPid
            + " 2>/dev/null; i=0; while kill -0 "
            + serverPid
            + " 2>/dev/null && [ $i -lt 30 ]; do sleep 1; i=$((i+1)); done; kill -9 "
            + serverPid
            + " 2>/dev/null"
            + directoryToDelete
                .map(path -> "; kill -0 " + jvmPid + " 2>/dev/null || rm -rf '" + path + "'")
                .orElse("");
    try {
      return new ProcessBuilder("sh", "-c", script)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a watchdog for process " + serverPid, e);
    }
  }

  /**
   * Runs one of the project's install scripts, shipped in this jar next to this class so it works
   * outside a checkout, and waits for it (up to 15 minutes; apt-get may have to download).
   *
   * @throws IllegalStateException when the script fails; the message says which package to install
   *     by hand
   */
  static void runInstallScript(String script, String debianPackage) {
    Path directory = null;
    try {
      // The script sources lib/apt-install.sh next to it: copy both out of the jar.
      directory = Files.createTempDirectory("floe-install-");
      Path copy = copyResource(script, directory.resolve(script));
      copyResource(INSTALL_LIBRARY, directory.resolve(INSTALL_LIBRARY));
      Process process = new ProcessBuilder("bash", copy.toString()).inheritIO().start();
      if (!process.waitFor(INSTALL_TIMEOUT_MINUTES, TimeUnit.MINUTES) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IllegalStateException(
            script + " failed; install " + debianPackage + " with apt-get (as root) and retry");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + script, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + script, e);
    } finally {
      if (directory != null) {
        deleteRecursively(directory);
      }
    }
  }

  private static Path copyResource(String name, Path target) throws IOException {
    try (InputStream source = ServerProcesses.class.getResourceAsStream(name)) {
      if (source == null) {
        throw new IllegalStateException(name + " is missing from floe-testing's jar");
      }
      Files.createDirectories(target.getParent());
      Files.write(target, source.readAllBytes());
      return target;
    }
  }

  /** The last {@code lines} lines of a log, or a note that it does not exist. */
  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no " + file.getFileName() + ")";
    }
  }

  static void deleteRecursively(Path path) {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + path, e);
    }
  }
}
