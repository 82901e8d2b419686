package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the Flink launcher says when the group's {@code flink} address is not a Flink cluster: a
 * real HTTP server that answers as something else, and a port nothing listens on. (A real cluster
 * is in OptimizerOnFlinkClusterITCase.)
 */
class FlinkWorkerJobLauncherTest {

  @TempDir Path directory;

  private HttpServer server;
  private FlinkWorkerJobLauncher launcher;

  @BeforeEach
  void setUp() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body = "<html>not Flink</html>".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(404, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    launcher = new FlinkWorkerJobLauncher(directory, Optional.empty());
  }

  @AfterEach
  void tearDown() {
    server.stop(0);
  }

  @Test
  void anAddressThatIsNotFlinkIsNamedWithTheFix() {
    URI cluster = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    assertThatThrownBy(() -> launcher.jobs(cluster, "Floe optimizer workers"))
        .isInstanceOf(IOException.class)
        .hasMessage(
            "GET "
                + cluster
                + "/jobs/overview answered HTTP 404, not as a Flink REST endpoint: give the host"
                + " and REST port (rest.port, 8081 by default) of the cluster's JobManager in the"
                + " group's flink key");
  }

  @Test
  void anAddressWhereNothingListensSaysSo() throws IOException {
    int port = FloeProcess.freePort();
    URI cluster = URI.create("http://127.0.0.1:" + port);
    assertThatThrownBy(() -> launcher.jobs(cluster, "Floe optimizer workers"))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("no answer from " + cluster + "/jobs/overview: ");
    assertThatThrownBy(() -> launcher.cancel(cluster, "0123"))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("no answer from " + cluster + "/jobs/0123?mode=cancel: ");
  }
}
