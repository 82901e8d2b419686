package dev.floe.cli;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.Secret;
import dev.floe.optimizer.flink.OptimizerWorkerJob;
import dev.floe.server.workers.FlinkJobLauncher;
import dev.floe.sync.JobJars;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.SecurityOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs the worker jobs of {@code flink} groups ({@link OptimizerWorkerJob}) on Flink clusters:
 * lists and cancels jobs through the REST API ({@code GET /jobs/overview}, {@code PATCH
 * /jobs/ID?mode=cancel}) and submits with Flink's client ({@code
 * StreamExecutionEnvironment.createRemoteEnvironment}), shipping only the jars of this process's
 * classpath the worker needs ({@link OptimizerWorkerJob#needs}), so the cluster needs nothing of
 * Floe installed. The job carries the keeper's worker token, never its API token. A job that loses
 * a TaskManager is restarted by Flink up to {@link #RESTARTS} times; after that it fails and the
 * keeper submits it again.
 *
 * <p>Thread-safe.
 */
final class FlinkWorkerJobLauncher implements FlinkJobLauncher {

  /** How often Flink itself restarts a job that failed (e.g. lost a TaskManager). */
  static final int RESTARTS = 3;

  private static final Duration RESTART_DELAY = Duration.ofSeconds(5);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path work;
  private final Optional<Secret> workerToken;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private List<Path> jars; // guarded by this

  /**
   * @param work where class directories of this process's classpath are packed into jars
   * @param workerToken the keeper's {@link dev.floe.core.WorkerToken}, when it has a token
   */
  FlinkWorkerJobLauncher(Path work, Optional<Secret> workerToken) {
    this.work = requireNonNull(work, "work is null");
    this.workerToken = requireNonNull(workerToken, "workerToken is null");
  }

  @Override
  public List<Job> jobs(URI cluster, String namePrefix) throws IOException {
    URI url = URI.create(cluster + "/jobs/overview");
    HttpResponse<String> response = send(HttpRequest.newBuilder(url).GET(), url);
    JsonNode overview = parse(response.body());
    if (response.statusCode() != 200 || overview == null || !overview.path("jobs").isArray()) {
      throw new IOException(
          "GET "
              + url
              + " answered HTTP "
              + response.statusCode()
              + ", not as a Flink REST endpoint: give the host and REST port (rest.port, 8081 by"
              + " default) of the cluster's JobManager in the group's flink key");
    }
    List<Job> jobs = new ArrayList<>();
    for (JsonNode job : overview.get("jobs")) {
      String name = job.path("name").asText();
      if (name.startsWith(namePrefix)) {
        jobs.add(new Job(job.path("jid").asText(), name, job.path("state").asText()));
      }
    }
    return jobs;
  }

  @Override
  public String submit(URI cluster, WorkerJob job) throws IOException {
    Configuration configuration = new Configuration();
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, RESTARTS);
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, RESTART_DELAY);
    if (cluster.getScheme().equals("https")) {
      configuration.set(SecurityOptions.SSL_REST_ENABLED, true);
    }
    String host = cluster.getHost();
    if (host.startsWith("[")) {
      host = host.substring(1, host.length() - 1);
    }
    StreamExecutionEnvironment environment =
        StreamExecutionEnvironment.createRemoteEnvironment(
            host,
            cluster.getPort(),
            configuration,
            jars().stream().map(Path::toString).toArray(String[]::new));
    OptimizerWorkerJob.define(
        environment,
        new OptimizerWorkerJob.Settings(
            job.server(), job.group(), job.parallelism(), job.threadsPerWorker(), workerToken));
    try {
      JobClient client = environment.executeAsync(job.name());
      String id = client.getJobID().toHexString();
      if (client instanceof AutoCloseable closeable) {
        closeable.close();
      }
      return id;
    } catch (Exception e) {
      throw new IOException(rootMessage(e), e);
    }
  }

  @Override
  public void cancel(URI cluster, String jobId) throws IOException {
    URI url = URI.create(cluster + "/jobs/" + jobId + "?mode=cancel");
    HttpResponse<String> response =
        send(HttpRequest.newBuilder(url).method("PATCH", HttpRequest.BodyPublishers.noBody()), url);
    if (response.statusCode() != 202 && response.statusCode() != 200) {
      throw new IOException(
          "PATCH " + url + " answered HTTP " + response.statusCode() + ": " + response.body());
    }
  }

  private synchronized List<Path> jars() {
    if (jars == null) {
      jars = JobJars.of(System.getProperty("java.class.path", ""), work, OptimizerWorkerJob::needs);
    }
    return jars;
  }

  private HttpResponse<String> send(HttpRequest.Builder request, URI url) throws IOException {
    try {
      return http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while calling " + url, e);
    } catch (IOException e) {
      throw new IOException(
          "no answer from " + url + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()),
          e);
    }
  }

  private static JsonNode parse(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException notJson) {
      return null;
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? root.toString() : root.getMessage();
    return root == e ? message : e.getClass().getSimpleName() + ": " + message;
  }
}
