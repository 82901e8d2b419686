package dev.floe.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A private PostgreSQL server: {@code initdb} and {@code postgres} from the machine's {@code
 * postgresql} package, a fresh cluster in its own temporary directory, listening on a free loopback
 * port ({@code 127.0.0.1}) with its Unix socket inside that directory. Durability is traded for
 * speed ({@code fsync}, {@code synchronous_commit} and {@code full_page_writes} off): the data is
 * for one test run. When {@code initdb} is missing it is installed first with the project's {@code
 * install-postgresql.sh} (apt-get, once per machine).
 *
 * <p>PostgreSQL refuses to run as root, so when this JVM is root the cluster belongs to, and the
 * server runs as, the {@code postgres} account the package creates; otherwise it runs as the JVM's
 * own user. As root the temporary directory must lie where {@code postgres} can reach it ({@code
 * java.io.tmpdir}, {@code /tmp} by default).
 *
 * <p>Servers never collide: each has its own directory and port, so tests in parallel JVMs (and
 * several servers in one JVM) are safe. {@link #close()} stops the server and deletes its
 * directory; if the JVM dies first, a watchdog process does the same.
 *
 * <p>The superuser {@link #user()} logs in over TCP with {@link #password()} ({@code
 * scram-sha-256}); each server has its own random password. Instances are thread-safe.
 */
public final class PostgresServer implements AutoCloseable {

  private static final String USER = "floe";
  private static final String OWNER_WHEN_ROOT = "postgres";
  private static final String DEFAULT_DATABASE = "postgres";
  private static final int MAX_IDENTIFIER_BYTES = 63;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final int START_ATTEMPTS = 5;
  private static final AtomicInteger DATABASE_COUNTER = new AtomicInteger();
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int PASSWORD_BYTES = 16;

  private final Path directory;
  private final int port;
  private final String password;
  private final Process process;
  private final Process watchdog;
  private volatile boolean closed;

  private PostgresServer(
      Path directory, int port, String password, Process process, Process watchdog) {
    this.directory = directory;
    this.port = port;
    this.password = password;
    this.process = process;
    this.watchdog = watchdog;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The server shared by all tests of this JVM, started on first use and stopped when the JVM
   * exits. Tests keep apart by using their own databases ({@link #createDatabase(String)}).
   */
  public static PostgresServer shared() {
    return SharedServer.INSTANCE;
  }

  public String host() {
    return "127.0.0.1";
  }

  public int port() {
    return port;
  }

  public Path directory() {
    return directory;
  }

  /** The superuser's name; it logs in with {@link #password()}. */
  public String user() {
    return USER;
  }

  public String password() {
    return password;
  }

  /** A JDBC URL for the {@code postgres} database, which every cluster has. */
  public String jdbcUrl() {
    return jdbcUrl(DEFAULT_DATABASE);
  }

  /** A JDBC URL for the given database ({@code jdbc:postgresql://127.0.0.1:PORT/DATABASE}). */
  public String jdbcUrl(String database) {
    requireNonNull(database, "database is null");
    return "jdbc:postgresql://"
        + host()
        + ":"
        + port
        + "/"
        + URLEncoder.encode(database, StandardCharsets.UTF_8);
  }

  /** A new connection as {@link #user()} to the {@code postgres} database. The caller closes it. */
  public Connection connection() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), USER, password);
  }

  /** Runs statements as {@link #user()} on the {@code postgres} database, in order. */
  public void execute(String... statements) {
    try (Connection connection = connection();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "PostgreSQL on port " + port + " refused: " + e.getMessage(), e);
    }
  }

  /**
   * Creates a database whose name starts with {@code prefix} and is unique on this server, and
   * returns its name.
   *
   * @throws IllegalArgumentException when the name would exceed PostgreSQL's 63 bytes (it would
   *     silently shorten it)
   */
  public String createDatabase(String prefix) {
    requireNonNull(prefix, "prefix is null");
    String name =
        prefix + "_" + ProcessHandle.current().pid() + "_" + DATABASE_COUNTER.incrementAndGet();
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_IDENTIFIER_BYTES) {
      throw new IllegalArgumentException(
          "database prefix '"
              + prefix
              + "' is too long: '"
              + name
              + "' exceeds PostgreSQL's "
              + MAX_IDENTIFIER_BYTES
              + " bytes");
    }
    execute("CREATE DATABASE \"" + name.replace("\"", "\"\"") + "\"");
    return name;
  }

  /** The last lines of the server's log, for failure messages. */
  public String logTail() {
    return ServerProcesses.tail(directory.resolve("postgres.log"), 20);
  }

  /**
   * Stops the server (a fast shutdown, which ends open sessions; forced after 30 s) and deletes its
   * directory.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    watchdog.destroy();
    stop(process);
    ServerProcesses.deleteRecursively(directory);
  }

  /**
   * Sends SIGINT, PostgreSQL's fast shutdown. {@link Process#destroy()} sends SIGTERM, a smart
   * shutdown, which waits for every client to disconnect: a pool left open would hold it for the
   * whole stop timeout.
   */
  private static void stop(Process server) {
    try {
      if (server.isAlive()) {
        new ProcessBuilder("kill", "-INT", String.valueOf(server.pid()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start()
            .waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
      if (!server.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        server.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (IOException e) {
      server.destroyForcibly();
      throw new UncheckedIOException("cannot signal PostgreSQL (pid " + server.pid() + ")", e);
    } catch (InterruptedException e) {
      server.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Configures and starts a server. */
  public static final class Builder {
    private final Map<String, String> settings = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Sets a server parameter ({@code postgres -c name=value}), e.g. {@code wal_level} = {@code
     * logical}; it wins over the harness's own settings.
     */
    public Builder setting(String name, String value) {
      settings.put(requireNonNull(name, "name is null"), requireNonNull(value, "value is null"));
      return this;
    }

    /**
     * Creates a cluster, starts the server and waits until {@link #user()} can log in.
     *
     * @throws IllegalStateException when PostgreSQL cannot be installed, the cluster cannot be
     *     created or the server does not start; the message holds the tail of its log
     */
    public PostgresServer start() {
      PostgresBinaries binaries = PostgresBinaries.findOrInstall();
      ServerAccount account = ServerAccount.forThisJvm();
      Path home;
      try {
        home = Files.createTempDirectory("floe-postgres-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a directory for PostgreSQL", e);
      }
      try {
        account.own(home);
        byte[] secret = new byte[PASSWORD_BYTES];
        RANDOM.nextBytes(secret);
        String password = HexFormat.of().formatHex(secret);
        initializeCluster(binaries, account, home, password);
        IllegalStateException lastFailure = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
          try {
            return launch(binaries, account, home, ServerProcesses.freePort(), password);
          } catch (IllegalStateException failure) {
            lastFailure = failure;
            // Another process took the port between freePort() and the bind.
            if (!ServerProcesses.tail(home.resolve("postgres.log"), 50)
                .contains("Address already in use")) {
              break;
            }
          }
        }
        throw requireNonNull(lastFailure, "no start attempt was made");
      } catch (RuntimeException failure) {
        ServerProcesses.deleteRecursively(home);
        throw failure;
      }
    }

    private static void initializeCluster(
        PostgresBinaries binaries, ServerAccount account, Path home, String password) {
      Path passwordFile = home.resolve("password");
      try {
        Files.writeString(passwordFile, password, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("rw-------"));
        account.own(passwordFile);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + passwordFile, e);
      }
      try {
        ServerProcesses.run(
            account
                .processBuilder(
                    binaries.initdb().toString(),
                    "--pgdata=" + home.resolve("data"),
                    "--username=" + USER,
                    "--pwfile=" + passwordFile,
                    "--auth=scram-sha-256",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--no-sync",
                    "--no-instructions")
                .directory(home.toFile()),
            home.resolve("initdb.log"));
      } finally {
        try {
          Files.deleteIfExists(passwordFile);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot delete " + passwordFile, e);
        }
      }
    }

    private PostgresServer launch(
        PostgresBinaries binaries, ServerAccount account, Path home, int port, String password) {
      Map<String, String> effective = new LinkedHashMap<>();
      effective.put("listen_addresses", "127.0.0.1");
      effective.put("port", String.valueOf(port));
      effective.put("unix_socket_directories", home.toString());
      effective.put("fsync", "off");
      effective.put("synchronous_commit", "off");
      effective.put("full_page_writes", "off");
      effective.putAll(settings);
      List<String> command = new ArrayList<>();
      command.add(binaries.postgres().toString());
      command.add("-D");
      command.add(home.resolve("data").toString());
      effective.forEach(
          (name, value) -> {
            command.add("-c");
            command.add(name + "=" + value);
          });
      Process process;
      try {
        process =
            account
                .processBuilder(command.toArray(String[]::new))
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("postgres.log").toFile())
                .start();
      } catch (IOException e) {
        throw new IllegalStateException(
            "cannot start " + binaries.postgres() + ": " + e.getMessage(), e);
      }
      Process watchdog = ServerProcesses.startWatchdog(process.pid(), "INT", Optional.of(home));
      PostgresServer server = new PostgresServer(home, port, password, process, watchdog);
      Instant deadline = Instant.now().plus(START_TIMEOUT);
      SQLException lastError = null;
      while (Instant.now().isBefore(deadline)) {
        if (!process.isAlive()) {
          watchdog.destroy();
          throw new IllegalStateException(
              "PostgreSQL exited while starting on port "
                  + port
                  + " (exit code "
                  + process.exitValue()
                  + "). Its log ends with:\n"
                  + server.logTail());
        }
        try (Connection connection = server.connection()) {
          return server;
        } catch (SQLException notYet) {
          lastError = notYet;
        }
        try {
          Thread.sleep(50); // poll interval while waiting for the server's port
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      watchdog.destroy();
      stop(process);
      throw new IllegalStateException(
          "PostgreSQL did not accept connections on port "
              + port
              + " within "
              + START_TIMEOUT.toSeconds()
              + " s (last error: "
              + (lastError == null ? "none" : lastError.getMessage())
              + "). Its log ends with:\n"
              + server.logTail());
    }
  }

  /**
   * The operating-system account that owns the cluster and runs {@code initdb} and {@code
   * postgres}: {@code postgres} when this JVM is root, else the JVM's own user.
   *
   * <p>{@code setpriv} rather than {@code runuser} or {@code su}: it switches user and then execs,
   * so the process this JVM holds is the server itself, and signals reach it directly; the other
   * two stay in between as a parent process.
   */
  private record ServerAccount(Optional<UserPrincipal> owner, List<String> commandPrefix) {

    static ServerAccount forThisJvm() {
      if (!"root".equals(System.getProperty("user.name"))) {
        return new ServerAccount(Optional.empty(), List.of());
      }
      UserPrincipal owner;
      try {
        owner =
            FileSystems.getDefault()
                .getUserPrincipalLookupService()
                .lookupPrincipalByName(OWNER_WHEN_ROOT);
      } catch (IOException e) {
        throw new IllegalStateException(
            "PostgreSQL refuses to run as root and there is no '"
                + OWNER_WHEN_ROOT
                + "' account to run it as; install postgresql with apt-get (it creates the"
                + " account) or run as another user",
            e);
      }
      return new ServerAccount(
          Optional.of(owner),
          List.of(
              "setpriv",
              "--reuid=" + OWNER_WHEN_ROOT,
              "--regid=" + primaryGroup(OWNER_WHEN_ROOT),
              "--init-groups",
              "--"));
    }

    /** Gives {@code path} to the account (a no-op when that is the JVM's own user). */
    void own(Path path) {
      if (owner.isEmpty()) {
        return;
      }
      try {
        Files.setOwner(path, owner.get());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot give " + path + " to " + owner.get().getName(), e);
      }
    }

    ProcessBuilder processBuilder(String... command) {
      List<String> full = new ArrayList<>(commandPrefix);
      full.addAll(List.of(command));
      return new ProcessBuilder(full);
    }

    private static String primaryGroup(String user) {
      try {
        Process id =
            new ProcessBuilder("id", "-g", user)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String output = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!id.waitFor(10, TimeUnit.SECONDS) || id.exitValue() != 0) {
          throw new IllegalStateException("cannot find the primary group of '" + user + "'");
        }
        return output.strip();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot run id -g " + user, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while running id -g " + user, e);
      }
    }
  }

  /** The shared server, started on first use, stopped at JVM exit. */
  private static final class SharedServer {
    static final PostgresServer INSTANCE = startShared();

    private static PostgresServer startShared() {
      PostgresServer server = builder().start();
      Runtime.getRuntime().addShutdownHook(new Thread(server::close, "floe-postgres-shutdown"));
      return server;
    }
  }

  /** Where {@code initdb} and {@code postgres} are on this machine. */
  record PostgresBinaries(Path initdb, Path postgres) {

    /** Debian's layout: one directory per major version, none of it on PATH. */
    private static final Path DEBIAN_VERSIONS = Paths.get("/usr/lib/postgresql");

    static synchronized PostgresBinaries findOrInstall() {
      Optional<PostgresBinaries> found = find();
      if (found.isPresent()) {
        return found.get();
      }
      ServerProcesses.runInstallScript("install-postgresql.sh", "postgresql");
      return find()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "initdb is still missing after running install-postgresql.sh; install"
                          + " postgresql with apt-get and retry"));
    }

    /**
     * The first {@code initdb} on PATH, else the newest Debian version, with its {@code postgres}.
     */
    static Optional<PostgresBinaries> find() {
      for (Path directory : candidateDirectories()) {
        Path initdb = directory.resolve("initdb");
        Path postgres = directory.resolve("postgres");
        if (Files.isExecutable(initdb) && Files.isExecutable(postgres)) {
          return Optional.of(new PostgresBinaries(initdb, postgres));
        }
      }
      return Optional.empty();
    }

    private static List<Path> candidateDirectories() {
      List<Path> directories = new ArrayList<>();
      String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
      for (String entry : path.split(":")) {
        if (!entry.isEmpty()) {
          directories.add(Paths.get(entry));
        }
      }
      List<Path> versions = new ArrayList<>();
      if (Files.isDirectory(DEBIAN_VERSIONS)) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(DEBIAN_VERSIONS)) {
          entries.forEach(version -> versions.add(version.resolve("bin")));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot list " + DEBIAN_VERSIONS, e);
        }
      }
      versions.sort(Comparator.comparing(PostgresBinaries::majorVersion).reversed());
      directories.addAll(versions);
      return directories;
    }

    /** 15 for {@code /usr/lib/postgresql/15/bin}; 0 for a directory not named by a number. */
    private static int majorVersion(Path binDirectory) {
      String name = binDirectory.getParent().getFileName().toString();
      return name.matches("\\d+") ? Integer.parseInt(name) : 0;
    }
  }
}
