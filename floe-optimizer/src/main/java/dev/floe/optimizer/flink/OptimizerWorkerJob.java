package dev.floe.optimizer.flink;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The Flink job of a {@code flink} worker group: {@code parallelism} subtasks of {@link
 * OptimizerWorkerSource}, each one worker of the group with {@code threadsPerWorker} threads
 * serving the keeper at {@code server}. {@link #needs} tells which entries of a classpath the
 * cluster needs to run it (this module's runtime classpath, recorded by its build), so a submitter
 * ships those and no others.
 */
public final class OptimizerWorkerJob {

  private static final String CLASSPATH_RESOURCE = "worker-job-classpath.txt";
  private static final Pattern FLOE_JAR = Pattern.compile("(floe-[a-z]+)-\\d.*\\.jar");
  private static final Set<String> NEEDED = needed();

  /**
   * What the job runs.
   *
   * @param workerToken the keeper's {@link dev.floe.core.WorkerToken}, when it has a token
   */
  public record Settings(
      URI server,
      String group,
      int parallelism,
      int threadsPerWorker,
      Optional<Secret> workerToken) {
    public Settings {
      requireNonNull(server, "server is null");
      requireNonNull(group, "group is null");
      requireNonNull(workerToken, "workerToken is null");
      if (parallelism < 1) {
        throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
      }
      if (threadsPerWorker < 1) {
        throw new IllegalArgumentException(
            "threadsPerWorker must be at least 1, got " + threadsPerWorker);
      }
    }
  }

  private OptimizerWorkerJob() {}

  /** Adds the job's operators to {@code environment}. */
  public static void define(StreamExecutionEnvironment environment, Settings settings) {
    requireNonNull(environment, "environment is null");
    requireNonNull(settings, "settings is null");
    environment
        .addSource(
            new OptimizerWorkerSource(
                settings.server(),
                settings.group(),
                settings.threadsPerWorker(),
                settings.workerToken()),
            "Floe optimizer workers of group " + settings.group(),
            Types.VOID)
        .setParallelism(settings.parallelism())
        .sinkTo(new DiscardingSink<>())
        .name("nothing to emit: the keeper commits")
        .setParallelism(settings.parallelism());
  }

  /**
   * Whether a classpath entry (a jar, or a build's class directory) is one the job needs on the
   * cluster: this module or one of its runtime dependencies. Floe's modules are matched by name
   * whether they are a jar or a {@code target/classes} directory; other jars by file name.
   */
  public static boolean needs(Path entry) {
    return NEEDED.contains(identity(entry.toAbsolutePath()));
  }

  private static String identity(Path entry) {
    Path name = entry.getFileName();
    if (name == null) {
      return "";
    }
    if (name.toString().equals("classes")
        && entry.getParent() != null
        && entry.getParent().getFileName() != null
        && entry.getParent().getFileName().toString().equals("target")
        && entry.getParent().getParent() != null) {
      return entry.getParent().getParent().getFileName().toString();
    }
    Matcher floe = FLOE_JAR.matcher(name.toString());
    return floe.matches() ? floe.group(1) : name.toString();
  }

  private static Set<String> needed() {
    try (InputStream in = OptimizerWorkerJob.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            CLASSPATH_RESOURCE + " is missing: floe-optimizer was not built by Maven");
      }
      Set<String> needed = new HashSet<>();
      needed.add("floe-optimizer");
      String classpath = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      for (String entry : classpath.split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          needed.add(identity(Path.of(entry.trim())));
        }
      }
      return Set.copyOf(needed);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + CLASSPATH_RESOURCE, e);
    }
  }
}
