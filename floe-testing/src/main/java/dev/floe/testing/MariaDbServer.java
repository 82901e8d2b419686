package dev.floe.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A private MariaDB server: {@code mariadbd} from the machine's {@code mariadb-server} package,
 * started in its own temporary directory on a free loopback port, binlog on ({@code ROW}, {@code
 * FULL}) unless told otherwise. When {@code mariadbd} is missing it is installed first with the
 * project's {@code install-mariadb.sh} (apt-get, once per machine).
 *
 * <p>Servers never collide: each has its own directory, port and server id, so tests in parallel
 * JVMs (and several servers in one JVM) are safe. {@link #close()} stops the server and deletes its
 * directory; if the JVM dies first, a watchdog process does the same.
 *
 * <p>The root account ({@code root@127.0.0.1}, no password) is the administrator.
 */
public final class MariaDbServer implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final int START_ATTEMPTS = 5;
  private static final AtomicInteger DATABASE_COUNTER = new AtomicInteger();

  private final Path directory;
  private final int port;
  private final int serverId;
  private final Process process;
  private final Process watchdog;
  private final boolean deleteDirectoryOnClose;
  private volatile boolean closed;

  private MariaDbServer(
      Path directory,
      int port,
      int serverId,
      Process process,
      Process watchdog,
      boolean deleteDirectoryOnClose) {
    this.directory = directory;
    this.port = port;
    this.serverId = serverId;
    this.process = process;
    this.watchdog = watchdog;
    this.deleteDirectoryOnClose = deleteDirectoryOnClose;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The server shared by all tests of this JVM (binlog ON, ROW, FULL), started on first use and
   * stopped when the JVM exits. Tests keep apart by using their own databases ({@link
   * #createDatabase(String)}).
   */
  public static MariaDbServer shared() {
    return SharedServer.INSTANCE;
  }

  public String host() {
    return "127.0.0.1";
  }

  public int port() {
    return port;
  }

  public int serverId() {
    return serverId;
  }

  public Path directory() {
    return directory;
  }

  /** A JDBC URL for the given account, without a database. */
  public String jdbcUrl() {
    return "jdbc:mysql://"
        + host()
        + ":"
        + port
        + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true";
  }

  /** A Floe source URL ({@code mysql://user:password@host:port/database}). */
  public String sourceUrl(String user, String password, String database) {
    return "mysql://"
        + user
        + (password.isEmpty() ? "" : ":" + password)
        + "@"
        + host()
        + ":"
        + port
        + (database.isEmpty() ? "" : "/" + database);
  }

  /** A new connection as root. The caller closes it. */
  public Connection rootConnection() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), "root", "");
  }

  /** Runs statements as root, in order. */
  public void execute(String... statements) {
    try (Connection connection = rootConnection();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("MariaDB on port " + port + " refused: " + e.getMessage(), e);
    }
  }

  /** Creates a database whose name starts with {@code prefix} and is unique on this server. */
  public String createDatabase(String prefix) {
    String name =
        prefix + "_" + ProcessHandle.current().pid() + "_" + DATABASE_COUNTER.incrementAndGet();
    execute("CREATE DATABASE `" + name + "`");
    return name;
  }

  /** Creates an account with the given privileges on {@code *.*} (none when empty). */
  public void createUser(String user, String password, String globalPrivileges) {
    execute(
        "CREATE OR REPLACE USER '" + user + "'@'%' IDENTIFIED BY '" + password + "'",
        globalPrivileges.isEmpty()
            ? "DO 0"
            : "GRANT " + globalPrivileges + " ON *.* TO '" + user + "'@'%'");
  }

  /** Makes this server a replica of {@code primary}, as root, and waits until it replicates. */
  public void replicateFrom(MariaDbServer primary) {
    execute(
        "CHANGE MASTER TO MASTER_HOST='"
            + primary.host()
            + "', MASTER_PORT="
            + primary.port()
            + ", MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=no",
        "START SLAVE");
  }

  /** The last lines of the server's error log, for failure messages. */
  public String errorLogTail() {
    return ServerProcesses.tail(directory.resolve("error.log"), 20);
  }

  /** Stops the server (a clean shutdown, forced after 30 s) and deletes its directory. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    watchdog.destroy();
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    if (deleteDirectoryOnClose) {
      ServerProcesses.deleteRecursively(directory);
    }
  }

  /** Configures and starts a server. */
  public static final class Builder {
    private boolean binlog = true;
    private String binlogFormat = "ROW";
    private String binlogRowImage = "FULL";
    private Optional<Path> directory = Optional.empty();
    private final List<String> extraArguments = new ArrayList<>();

    private Builder() {}

    /** Whether the binary log is on ({@code --log-bin}); default true. */
    public Builder binlog(boolean enabled) {
      this.binlog = enabled;
      return this;
    }

    public Builder binlogFormat(String format) {
      this.binlogFormat = requireNonNull(format, "format is null");
      return this;
    }

    public Builder binlogRowImage(String rowImage) {
      this.binlogRowImage = requireNonNull(rowImage, "rowImage is null");
      return this;
    }

    /**
     * Keeps the server's files in this directory (created if needed, kept after close) instead of a
     * temporary one.
     */
    public Builder directory(Path path) {
      this.directory = Optional.of(path);
      return this;
    }

    /** More {@code mariadbd} options, e.g. {@code --log-slave-updates=OFF}. */
    public Builder argument(String argument) {
      extraArguments.add(requireNonNull(argument, "argument is null"));
      return this;
    }

    /**
     * Starts the server and waits until it accepts connections.
     *
     * @throws IllegalStateException when MariaDB cannot be installed or does not start; the message
     *     holds the tail of its error log
     */
    public MariaDbServer start() {
      MariaDbBinaries binaries = MariaDbBinaries.findOrInstall();
      Path home;
      boolean temporary = directory.isEmpty();
      try {
        home =
            temporary
                ? Files.createTempDirectory("floe-mariadb-")
                : Files.createDirectories(directory.get());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a directory for MariaDB", e);
      }
      Path data = home.resolve("data");
      if (!Files.isDirectory(data.resolve("mysql"))) {
        initializeDataDirectory(binaries, home, data);
      }
      IllegalStateException lastFailure = null;
      for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
        int port = ServerProcesses.freePort();
        int serverId = ThreadLocalRandom.current().nextInt(2, 1 << 30);
        try {
          return launch(binaries, home, data, port, serverId, temporary);
        } catch (IllegalStateException failure) {
          lastFailure = failure;
          if (!ServerProcesses.tail(home.resolve("error.log"), 50)
              .contains("Address already in use")) {
            break;
          }
        }
      }
      if (temporary) {
        ServerProcesses.deleteRecursively(home);
      }
      throw requireNonNull(lastFailure, "no start attempt was made");
    }

    /**
     * Runs mariadb-install-db; a second try on a fresh directory covers the rare bootstrap failure
     * seen when several servers initialise at the same moment.
     */
    private static void initializeDataDirectory(MariaDbBinaries binaries, Path home, Path data) {
      for (int attempt = 1; ; attempt++) {
        try {
          ServerProcesses.run(
              new ProcessBuilder(
                  binaries.installDb().toString(),
                  "--no-defaults",
                  "--datadir=" + data,
                  "--auth-root-authentication-method=normal",
                  "--skip-test-db",
                  userArgument()),
              home.resolve("install-db.log"));
          return;
        } catch (IllegalStateException failure) {
          if (attempt == 2) {
            throw failure;
          }
          ServerProcesses.deleteRecursively(data);
        }
      }
    }

    private MariaDbServer launch(
        MariaDbBinaries binaries, Path home, Path data, int port, int serverId, boolean temporary) {
      List<String> command = new ArrayList<>();
      command.add(binaries.server().toString());
      command.add("--no-defaults");
      command.add(userArgument());
      command.add("--datadir=" + data);
      command.add("--socket=" + home.resolve("mariadb.sock"));
      command.add("--pid-file=" + home.resolve("mariadb.pid"));
      command.add("--log-error=" + home.resolve("error.log"));
      command.add("--port=" + port);
      command.add("--bind-address=127.0.0.1");
      command.add("--server-id=" + serverId);
      command.add("--skip-name-resolve");
      command.add("--character-set-server=utf8mb4");
      command.add("--collation-server=utf8mb4_general_ci");
      command.add("--innodb-buffer-pool-size=128M");
      command.add("--innodb-flush-log-at-trx-commit=2");
      command.add("--performance-schema=OFF");
      command.add("--max-connections=500");
      if (binlog) {
        command.add("--log-bin=" + data.resolve("mysql-bin"));
        command.add("--sync-binlog=0");
      }
      // Set even without a binlog, so that switching the binlog off changes nothing else.
      command.add("--binlog-format=" + binlogFormat);
      command.add("--binlog-row-image=" + binlogRowImage);
      command.addAll(extraArguments);
      Process process;
      try {
        process =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("mariadbd.out").toFile())
                .start();
      } catch (IOException e) {
        throw new IllegalStateException(
            "cannot start " + binaries.server() + ": " + e.getMessage(), e);
      }
      Process watchdog =
          ServerProcesses.startWatchdog(
              process.pid(), "TERM", temporary ? Optional.of(home) : Optional.empty());
      MariaDbServer server = new MariaDbServer(home, port, serverId, process, watchdog, temporary);
      Instant deadline = Instant.now().plus(START_TIMEOUT);
      SQLException lastError = null;
      while (Instant.now().isBefore(deadline)) {
        if (!process.isAlive()) {
          watchdog.destroy();
          throw new IllegalStateException(
              "MariaDB exited while starting on port "
                  + port
                  + " (exit code "
                  + process.exitValue()
                  + "). Its error log ends with:\n"
                  + ServerProcesses.tail(home.resolve("error.log"), 20));
        }
        try (Connection connection = server.rootConnection()) {
          return server;
        } catch (SQLException notYet) {
          lastError = notYet;
        }
        try {
          Thread.sleep(100); // poll interval while waiting for the server's port
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      process.destroyForcibly();
      watchdog.destroy();
      throw new IllegalStateException(
          "MariaDB did not accept connections on port "
              + port
              + " within "
              + START_TIMEOUT.toSeconds()
              + " s (last error: "
              + (lastError == null ? "none" : lastError.getMessage())
              + "). Its error log ends with:\n"
              + ServerProcesses.tail(home.resolve("error.log"), 20));
    }
  }

  private static String userArgument() {
    // mariadbd refuses to run as root unless told to; as another user it runs as that user.
    return "--user=" + System.getProperty("user.name");
  }

  /** The shared server, started on first use, stopped at JVM exit. */
  private static final class SharedServer {
    static final MariaDbServer INSTANCE = startShared();

    private static MariaDbServer startShared() {
      MariaDbServer server = builder().start();
      Runtime.getRuntime().addShutdownHook(new Thread(server::close, "floe-mariadb-shutdown"));
      return server;
    }
  }

  /** Where {@code mariadbd} and {@code mariadb-install-db} are on this machine. */
  record MariaDbBinaries(Path server, Path installDb) {

    private static final List<String> SERVER_NAMES = List.of("mariadbd", "mysqld");
    private static final List<String> INSTALL_NAMES =
        List.of("mariadb-install-db", "mysql_install_db");

    static synchronized MariaDbBinaries findOrInstall() {
      Optional<MariaDbBinaries> found = find();
      if (found.isPresent()) {
        return found.get();
      }
      ServerProcesses.runInstallScript("install-mariadb.sh", "mariadb-server");
      return find()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "mariadbd is still missing after running install-mariadb.sh; install"
                          + " mariadb-server with apt-get and retry"));
    }

    static Optional<MariaDbBinaries> find() {
      Optional<Path> server = locate(SERVER_NAMES);
      Optional<Path> installDb = locate(INSTALL_NAMES);
      if (server.isPresent() && installDb.isPresent()) {
        return Optional.of(new MariaDbBinaries(server.get(), installDb.get()));
      }
      return Optional.empty();
    }

    private static Optional<Path> locate(List<String> names) {
      List<Path> directories = new ArrayList<>();
      String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
      for (String entry : path.split(":")) {
        if (!entry.isEmpty()) {
          directories.add(Paths.get(entry));
        }
      }
      directories.add(Paths.get("/usr/sbin"));
      directories.add(Paths.get("/usr/bin"));
      directories.add(Paths.get("/usr/local/mysql/bin"));
      for (String name : names) {
        for (Path directory : directories) {
          Path candidate = directory.resolve(name);
          if (Files.isExecutable(candidate)) {
            return Optional.of(candidate);
          }
        }
      }
      return Optional.empty();
    }
  }
}
