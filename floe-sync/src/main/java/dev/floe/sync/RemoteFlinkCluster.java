package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A Flink cluster that runs the binlog job ({@code floe sync --flink HOST:PORT}), reached through
 * its JobManager's REST endpoint. The job is submitted with the jars of this process's classpath
 * (see {@link JobJars}), so the cluster needs nothing of Floe installed.
 *
 * <p>The cluster must reach what the job's tasks open: MySQL, the Iceberg catalog and warehouse,
 * and the sync's state directory (checkpoints and savepoints are written there, at the same path).
 */
public final class RemoteFlinkCluster {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> ENDED = Set.of("FINISHED", "CANCELED", "FAILED");

  private final FlinkClusterAddress address;
  private final String option;
  private final String flinkVersion;
  private final HttpClient http;
  private final Duration timeout;

  private RemoteFlinkCluster(
      FlinkClusterAddress address,
      String option,
      String flinkVersion,
      HttpClient http,
      Duration timeout) {
    this.address = address;
    this.option = option;
    this.flinkVersion = flinkVersion;
    this.http = http;
    this.timeout = timeout;
  }

  /**
   * Checks that a Flink cluster answers at the address (its REST API's {@code /config}).
   *
   * @param option where the address came from ({@code --flink}, {@code sync.flink}), for messages
   * @throws FloeException BAD_INPUT naming the option and value when nothing answers there, or
   *     something that is not Flink's REST API
   */
  public static RemoteFlinkCluster connect(
      FlinkClusterAddress address, String option, Duration timeout) {
    requireNonNull(address, "address is null");
    requireNonNull(option, "option is null");
    requireNonNull(timeout, "timeout is null");
    HttpClient http = HttpClient.newBuilder().connectTimeout(timeout).build();
    String url = address.url() + "/config";
    JsonNode config;
    try {
      InetAddress.getByName(address.host());
    } catch (UnknownHostException e) {
      throw unreachable(address, option, url, "unknown host", e);
    }
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      config = response.statusCode() == 200 ? parse(response.body()) : null;
      if (config == null || !config.hasNonNull("flink-version")) {
        throw FloeException.badInput(
            option
                + " "
                + address
                + " answered GET "
                + url
                + " with HTTP "
                + response.statusCode()
                + ", not as a Flink REST endpoint. Give the host and REST port of the Flink"
                + " cluster's JobManager (its rest.port, 8081 by default), or leave "
                + option
                + " out to run the sync on a local Flink.");
      }
    } catch (IOException e) {
      throw unreachable(address, option, url, why(e), e);
    } catch (IllegalArgumentException e) {
      String why = e instanceof UnresolvedAddressException ? "unknown host" : "not a valid address";
      throw unreachable(address, option, url, why, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable(address, option, url, "interrupted", e);
    }
    return new RemoteFlinkCluster(
        address, option, config.get("flink-version").asText(), http, timeout);
  }

  private static JsonNode parse(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException notJson) {
      return null;
    }
  }

  private static FloeException unreachable(
      FlinkClusterAddress address, String option, String url, String why, Exception cause) {
    return new FloeException(
        ErrorCategory.BAD_INPUT,
        "Cannot reach a Flink cluster at "
            + option
            + " "
            + address
            + ": "
            + why
            + " (GET "
            + url
            + "). Start the cluster, or give the host and REST port of its JobManager (its"
            + " rest.port, 8081 by default); leave "
            + option
            + " out to run the sync on a local Flink.",
        cause);
  }

  private static String why(IOException e) {
    if (e instanceof HttpConnectTimeoutException || e instanceof HttpTimeoutException) {
      return "no answer in time";
    }
    if (e instanceof ConnectException) {
      Throwable cause = e.getCause();
      if (cause instanceof UnresolvedAddressException) {
        return "unknown host";
      }
      return "connection refused";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  public FlinkClusterAddress address() {
    return address;
  }

  /** The cluster's Flink version, as its REST API reports it. */
  public String flinkVersion() {
    return flinkVersion;
  }

  /**
   * Fails when a job of this name still runs on the cluster: a second one would write the same
   * tables (a {@code floe sync} killed with kill -9 leaves its job running there).
   *
   * @throws FloeException BAD_INPUT naming the job and how to stop it
   */
  void requireNotRunning(String jobName) {
    JsonNode overview;
    String url = address.url() + "/jobs/overview";
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      overview = parse(response.body());
    } catch (IOException e) {
      throw unreachable(address, option, url, why(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable(address, option, url, "interrupted", e);
    }
    if (overview == null || !overview.has("jobs")) {
      return;
    }
    for (JsonNode job : overview.get("jobs")) {
      if (jobName.equals(job.path("name").asText())
          && !ENDED.contains(job.path("state").asText())) {
        String id = job.path("jid").asText();
        throw FloeException.badInput(
            "The Flink cluster at "
                + address
                + " still runs "
                + jobName
                + " as job "
                + id
                + " ("
                + job.path("state").asText()
                + "), so this sync already runs there. Cancel that job first (flink cancel "
                + id
                + ", or PATCH "
                + address.url()
                + "/jobs/"
                + id
                + "?mode=cancel): its checkpoints are kept, and floe sync resumes from the newest.");
      }
    }
  }

  /** An environment that submits to this cluster with the given jars. */
  StreamExecutionEnvironment environment(Configuration configuration, List<Path> jars) {
    return StreamExecutionEnvironment.createRemoteEnvironment(
        address.host(),
        address.port(),
        configuration,
        jars.stream().map(Path::toString).toArray(String[]::new));
  }

  @Override
  public String toString() {
    return "Flink " + flinkVersion + " at " + address;
  }
}
