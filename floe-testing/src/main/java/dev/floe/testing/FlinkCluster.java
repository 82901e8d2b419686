package dev.floe.testing;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * A Flink standalone session cluster on this machine, for tests and trials: a JobManager ({@code
 * StandaloneSessionClusterEntrypoint}) and TaskManagers ({@code TaskManagerRunner}), each in its
 * own JVM, started the way Flink's {@code bin/jobmanager.sh} and {@code bin/taskmanager.sh} start
 * them: {@code --configDir} with a generated {@code config.yaml}; each process's memory options
 * turned into JVM parameters ({@code -Xmx}, {@code -Xms}, {@code -XX:MaxDirectMemorySize}, {@code
 * -XX:MaxMetaspaceSize}) and dynamic {@code -D} settings by Flink's {@code BashJavaUtils} ({@code
 * GET_TM_RESOURCE_PARAMS}, {@code GET_JM_RESOURCE_PARAMS}), run as the scripts run it; {@code
 * env.java.opts.*} on the command line; one log file per process.
 *
 * <p>The JVMs' classpath is Flink's jars from Maven (the modules a Flink distribution's {@code
 * lib/} bundles: runtime, clients, streaming, web UI, table runtime, and log4j) and nothing else:
 * no Floe, Iceberg, CDC, JDBC or Hadoop jars, so a job runs there only with the jars it ships, as
 * on a real cluster. The list is written by floe-testing's build ({@code
 * flink-cluster-classpath.txt}, Maven's order, paths into the local repository).
 *
 * <p>Everything listens on 127.0.0.1: the REST endpoint and the JobManager's RPC port on free
 * ports, the blob server and the TaskManagers' RPC and data ports on ports the system picks.
 *
 * <p>{@link #close()} stops every process and deletes the directory (unless one was given); if this
 * JVM dies first, a watchdog process per cluster process stops it. The JVM that starts a cluster
 * needs no Flink jars of its own. Instances are thread-safe.
 */
public final class FlinkCluster implements AutoCloseable {

  private static final String JOB_MANAGER_CLASS =
      "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
  private static final String TASK_MANAGER_CLASS =
      "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
  private static final String BASH_JAVA_UTILS_CLASS =
      "org.apache.flink.runtime.util.bash.BashJavaUtils";

  /** How BashJavaUtils marks the lines of its results. */
  private static final String BASH_JAVA_UTILS_RESULT = "BASH_JAVA_UTILS_EXEC_RESULT:";

  private static final String CLASSPATH_RESOURCE = "flink-cluster-classpath.txt";
  private static final String LOG4J_RESOURCE = "flink-log4j.properties";
  private static final String HOST = "127.0.0.1";
  private static final String REST_PORT = "rest.port";
  private static final String SLOTS = "taskmanager.numberOfTaskSlots";

  /**
   * {@code env.java.opts.all} as Flink 1.20's distribution ships it in {@code conf/config.yaml}:
   * what Flink needs on Java 17.
   */
  private static final String JAVA_17_OPTIONS =
      "--add-exports=java.base/sun.net.util=ALL-UNNAMED"
          + " --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED"
          + " --add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED"
          + " --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED"
          + " --add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED"
          + " --add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED"
          + " --add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED"
          + " --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED"
          + " --add-opens=java.base/java.lang=ALL-UNNAMED"
          + " --add-opens=java.base/java.net=ALL-UNNAMED"
          + " --add-opens=java.base/java.io=ALL-UNNAMED"
          + " --add-opens=java.base/java.nio=ALL-UNNAMED"
          + " --add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
          + " --add-opens=java.base/java.lang.reflect=ALL-UNNAMED"
          + " --add-opens=java.base/java.text=ALL-UNNAMED"
          + " --add-opens=java.base/java.time=ALL-UNNAMED"
          + " --add-opens=java.base/java.util=ALL-UNNAMED"
          + " --add-opens=java.base/java.util.concurrent=ALL-UNNAMED"
          + " --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED"
          + " --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(200);
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(5);
  private static final int START_ATTEMPTS = 3;
  private static final int LOG_TAIL_LINES = 50;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path directory;
  private final boolean deleteDirectoryOnClose;
  private final List<Path> classpath;
  private final Map<String, String> configuration;
  private final LaunchParameters taskManagerLaunch;
  private final int restPort;
  private final int slotsPerTaskManager;
  private final ClusterProcess jobManager;
  private final HttpClient http;
  private final List<TaskManager> taskManagers = new ArrayList<>(); // guarded by this
  private final List<TaskManager> everStarted = new ArrayList<>(); // guarded by this, for logs
  private int taskManagersStarted; // guarded by this
  private boolean closed; // guarded by this

  private FlinkCluster(
      Path directory,
      boolean deleteDirectoryOnClose,
      List<Path> classpath,
      Map<String, String> configuration,
      LaunchParameters taskManagerLaunch,
      ClusterProcess jobManager,
      HttpClient http) {
    this.directory = directory;
    this.deleteDirectoryOnClose = deleteDirectoryOnClose;
    this.classpath = classpath;
    this.configuration = configuration;
    this.taskManagerLaunch = taskManagerLaunch;
    this.restPort = Integer.parseInt(configuration.get(REST_PORT));
    this.slotsPerTaskManager = Integer.parseInt(configuration.get(SLOTS));
    this.jobManager = jobManager;
    this.http = http;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The REST endpoint, e.g. {@code http://127.0.0.1:40123}: the web UI and Flink's REST API. */
  public String restUrl() {
    return "http://" + restAddress();
  }

  /** The REST endpoint as HOST:PORT, what {@code floe sync --flink} takes. */
  public String restAddress() {
    return HOST + ":" + restPort;
  }

  public int restPort() {
    return restPort;
  }

  /** Where the cluster lives: {@code conf/}, {@code log/} and {@code tmp/}. */
  public Path directory() {
    return directory;
  }

  /** The classpath of every process of the cluster, in order. */
  public List<Path> classpath() {
    return classpath;
  }

  public int slotsPerTaskManager() {
    return slotsPerTaskManager;
  }

  public long jobManagerPid() {
    return jobManager.process.pid();
  }

  /** The TaskManagers this harness started and has not killed or stopped, oldest first. */
  public synchronized List<TaskManager> taskManagers() {
    return List.copyOf(taskManagers);
  }

  /**
   * Starts one more TaskManager (with the next id, {@code taskmanager-N}) and waits until the
   * JobManager has registered it.
   *
   * @throws IllegalStateException when it exits or is not registered within 2 minutes; the message
   *     holds the tails of the logs
   */
  public synchronized TaskManager startTaskManager() {
    checkOpen();
    TaskManager started = launchTaskManager();
    awaitRegistered(List.of(started));
    return started;
  }

  /**
   * Kills a TaskManager with SIGKILL (as {@code kill -9} does), without warning it, and waits until
   * its process is gone. The JobManager notices by its heartbeats; see {@link
   * #awaitRegisteredTaskManagers}.
   */
  public synchronized void kill(TaskManager taskManager) {
    requireNonNull(taskManager, "taskManager is null");
    if (!taskManagers.remove(taskManager)) {
      throw new IllegalArgumentException(
          taskManager.id() + " is not a running TaskManager of this cluster");
    }
    taskManager.process.kill();
  }

  /**
   * The TaskManagers the JobManager has registered, by id, with their number of slots (REST {@code
   * GET /taskmanagers}).
   */
  public Map<String, Integer> registeredTaskManagers() throws IOException, InterruptedException {
    JsonNode answer = getJson("/taskmanagers");
    Map<String, Integer> registered = new TreeMap<>();
    for (JsonNode taskManager : answer.path("taskmanagers")) {
      registered.put(taskManager.path("id").asText(), taskManager.path("slotsNumber").asInt());
    }
    return registered;
  }

  /**
   * Waits until the JobManager has registered exactly these TaskManagers (e.g. after {@link #kill}:
   * the killed one is gone from the list once its heartbeats fail).
   *
   * @throws AssertionError when it does not happen within {@code within}
   */
  public void awaitRegisteredTaskManagers(Set<String> ids, Duration within) throws Exception {
    Set<String> expected = new TreeSet<>(ids);
    Poll.until(
        "the JobManager registers exactly the TaskManagers " + expected,
        within,
        POLL_INTERVAL,
        () -> registeredTaskManagers().keySet().equals(expected));
  }

  /** A GET on the REST API, e.g. {@code /jobs/overview}; the answer must be 200 with JSON. */
  public JsonNode getJson(String path) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(restUrl() + path)).timeout(HTTP_TIMEOUT).build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          "GET "
              + restUrl()
              + path
              + " answered "
              + response.statusCode()
              + ": "
              + response.body());
    }
    return JSON.readTree(response.body());
  }

  /**
   * The last lines of the log and output of every process (killed TaskManagers too), for failure
   * messages.
   */
  public synchronized String logTails() {
    List<ClusterProcess> processes = new ArrayList<>();
    processes.add(jobManager);
    everStarted.forEach(taskManager -> processes.add(taskManager.process));
    return tails(processes);
  }

  /**
   * Stops every process (SIGTERM, then SIGKILL after 30 s) and deletes the directory unless it was
   * given to the builder.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<ClusterProcess> processes = new ArrayList<>();
    taskManagers.forEach(taskManager -> processes.add(taskManager.process));
    processes.add(jobManager);
    taskManagers.clear();
    stopAll(processes);
    if (deleteDirectoryOnClose) {
      ServerProcesses.deleteRecursively(directory);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the Flink cluster in " + directory + " is closed");
    }
  }

  private TaskManager launchTaskManager() {
    String id = "taskmanager-" + ++taskManagersStarted;
    List<String> arguments = new ArrayList<>();
    arguments.add("--configDir");
    arguments.add(directory.resolve("conf").toString());
    arguments.addAll(taskManagerLaunch.dynamicConfigs());
    arguments.add("-D");
    arguments.add("taskmanager.resource-id=" + id);
    ClusterProcess process =
        ClusterProcess.start(
            id,
            directory,
            Optional.empty(),
            classpath,
            taskManagerLaunch.jvmParameters(),
            javaOptions(configuration, "taskmanager"),
            TASK_MANAGER_CLASS,
            arguments);
    TaskManager taskManager = new TaskManager(id, process);
    taskManagers.add(taskManager);
    everStarted.add(taskManager);
    return taskManager;
  }

  /**
   * Waits until the JobManager lists each of them with all its slots; fails at once when a process
   * of the cluster exits.
   */
  private void awaitRegistered(List<TaskManager> expected) {
    awaitCondition(
        expected + " registered with the JobManager, " + slotsPerTaskManager + " slots each",
        () -> {
          failIfExited(jobManager);
          expected.forEach(taskManager -> failIfExited(taskManager.process));
          Map<String, Integer> registered;
          try {
            registered = registeredTaskManagers();
          } catch (IOException notYet) {
            return false; // the REST endpoint or its ResourceManager is not up yet
          }
          return expected.stream()
              .allMatch(
                  taskManager ->
                      Integer.valueOf(slotsPerTaskManager)
                          .equals(registered.get(taskManager.id())));
        });
  }

  private void awaitCondition(String what, Poll.Condition condition) {
    try {
      Poll.until(what, START_TIMEOUT, POLL_INTERVAL, condition);
    } catch (AssertionError | IllegalStateException e) {
      throw new IllegalStateException(
          "The Flink cluster in " + directory + " is not ready: " + e.getMessage() + logTails(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for: " + what, e);
    } catch (Exception e) {
      throw new IllegalStateException(
          "The Flink cluster in " + directory + " is not ready: " + e + logTails(), e);
    }
  }

  private static void failIfExited(ClusterProcess process) {
    if (!process.process.isAlive()) {
      throw new IllegalStateException(
          process.name + " exited (exit code " + process.process.exitValue() + ")");
    }
  }

  private static String tails(List<ClusterProcess> processes) {
    StringBuilder tails = new StringBuilder();
    for (ClusterProcess process : processes) {
      for (Path file : List.of(process.log, process.out)) {
        tails
            .append("\n--- ")
            .append(file)
            .append(" ends with:\n")
            .append(ServerProcesses.tail(file, LOG_TAIL_LINES));
      }
    }
    return tails.toString();
  }

  private static void stopAll(List<ClusterProcess> processes) {
    processes.forEach(process -> process.process.destroy());
    for (ClusterProcess process : processes) {
      process.awaitStop();
    }
  }

  /**
   * The JVM options Flink's {@code config.sh} reads for a process: {@code
   * env.java.default-opts.all} and {@code env.java.opts.all}, then the role's ({@code jobmanager},
   * {@code taskmanager}) default and own options.
   */
  private static List<String> javaOptions(Map<String, String> configuration, String role) {
    List<String> options = new ArrayList<>();
    for (String key :
        List.of(
            "env.java.default-opts.all",
            "env.java.opts.all",
            "env.java.default-opts." + role,
            "env.java.opts." + role)) {
      options.addAll(words(configuration.getOrDefault(key, "")));
    }
    return options;
  }

  private static List<String> words(String text) {
    return Arrays.stream(text.trim().split("\\s+")).filter(word -> !word.isEmpty()).toList();
  }

  /** A TaskManager of the cluster: its resource id (as the REST API lists it) and process. */
  public static final class TaskManager {
    private final String id;
    private final ClusterProcess process;

    private TaskManager(String id, ClusterProcess process) {
      this.id = id;
      this.process = process;
    }

    /** Its resource id, {@code taskmanager-N}. */
    public String id() {
      return id;
    }

    public long pid() {
      return process.process.pid();
    }

    public boolean isAlive() {
      return process.process.isAlive();
    }

    /** Its log file (Flink's log4j output). */
    public Path log() {
      return process.log;
    }

    @Override
    public String toString() {
      return id + " (pid " + pid() + ")";
    }
  }

  /**
   * The JVM parameters and dynamic settings Flink's scripts get from {@code BashJavaUtils} for a
   * process: its last two result lines.
   */
  record LaunchParameters(List<String> jvmParameters, List<String> dynamicConfigs) {

    LaunchParameters {
      jvmParameters = List.copyOf(jvmParameters);
      dynamicConfigs = List.copyOf(dynamicConfigs);
    }

    /**
     * Starts {@code BashJavaUtils COMMAND --configDir conf} on the cluster's classpath, as {@code
     * bash-java-utils.sh} does: {@code GET_TM_RESOURCE_PARAMS} gives -Xmx, -Xms,
     * -XX:MaxDirectMemorySize, -XX:MaxMetaspaceSize and the -D settings of every memory pool and
     * the CPU cores; {@code GET_JM_RESOURCE_PARAMS} the JobManager's. {@link #await} reads them.
     */
    static Process start(String command, Path home, List<Path> classpath) {
      Path output = output(command, home);
      try {
        Files.createDirectories(output.getParent());
        return new ProcessBuilder(
                javaExecutable(),
                "-classpath",
                joined(classpath),
                BASH_JAVA_UTILS_CLASS,
                command,
                "--configDir",
                home.resolve("conf").toString())
            .directory(home.toFile())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot run Flink's BashJavaUtils " + command, e);
      }
    }

    /**
     * Waits for a {@link #start}ed BashJavaUtils and reads its results.
     *
     * @throws IllegalStateException when it fails; the message holds its output
     */
    static LaunchParameters await(Process process, String command, Path home) {
      Path output = output(command, home);
      try {
        if (!process.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException(
              "Flink's BashJavaUtils " + command + " did not finish within " + START_TIMEOUT);
        }
        List<String> results =
            Files.readAllLines(output, StandardCharsets.UTF_8).stream()
                .filter(line -> line.startsWith(BASH_JAVA_UTILS_RESULT))
                .map(line -> line.substring(BASH_JAVA_UTILS_RESULT.length()))
                .toList();
        if (process.exitValue() != 0 || results.size() < 2) {
          throw new IllegalStateException(
              "Flink's BashJavaUtils "
                  + command
                  + " failed (exit code "
                  + process.exitValue()
                  + ") on "
                  + home.resolve("conf/config.yaml")
                  + ":\n"
                  + ServerProcesses.tail(output, LOG_TAIL_LINES));
        }
        // The last two results, as the scripts read them: JVM parameters, then -D settings.
        return new LaunchParameters(
            words(results.get(results.size() - 2)), words(results.get(results.size() - 1)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + output, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while running BashJavaUtils " + command, e);
      }
    }

    private static Path output(String command, Path home) {
      return home.resolve("log").resolve("bash-java-utils-" + command + ".out");
    }
  }

  private static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static String joined(List<Path> classpath) {
    return String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList());
  }

  /** One JVM of the cluster with its watchdog, log ({@code log/NAME.log}) and output. */
  private static final class ClusterProcess {
    private final String name;
    private final Process process;
    private final Process watchdog;
    private final Path log;
    private final Path out;

    private ClusterProcess(String name, Process process, Process watchdog, Path log, Path out) {
      this.name = name;
      this.process = process;
      this.watchdog = watchdog;
      this.log = log;
      this.out = out;
    }

    /** As Flink's {@code flink-daemon.sh}: java, JVM and Java options, log settings, class. */
    static ClusterProcess start(
        String name,
        Path directory,
        Optional<Path> deleteWhenTheJvmDies,
        List<Path> classpath,
        List<String> jvmParameters,
        List<String> javaOptions,
        String mainClass,
        List<String> arguments) {
      Path conf = directory.resolve("conf");
      Path log = directory.resolve("log").resolve(name + ".log");
      Path out = directory.resolve("log").resolve(name + ".out");
      Path log4j = conf.resolve("log4j.properties");
      List<String> command = new ArrayList<>();
      command.add(javaExecutable());
      command.addAll(jvmParameters);
      command.addAll(javaOptions);
      command.add("-Dlog.file=" + log);
      command.add("-Dlog4j.configuration=file:" + log4j);
      command.add("-Dlog4j.configurationFile=file:" + log4j);
      command.add("-classpath");
      command.add(joined(classpath));
      command.add(mainClass);
      command.addAll(arguments);
      Process process;
      try {
        Files.createDirectories(log.getParent());
        process =
            new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start the Flink " + name, e);
      }
      Process watchdog = ServerProcesses.startWatchdog(process.pid(), "TERM", deleteWhenTheJvmDies);
      return new ClusterProcess(name, process, watchdog, log, out);
    }

    void kill() {
      watchdog.destroy();
      process.destroyForcibly();
      awaitExit(process);
    }

    /** Waits for the process to end after SIGTERM, sends SIGKILL after 30 s. */
    void awaitStop() {
      watchdog.destroy();
      try {
        if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
          process.destroyForcibly();
          awaitExit(process);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }

    private static void awaitExit(Process process) {
      try {
        process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Configures and starts a cluster. */
  public static final class Builder {
    private int taskManagers = 2;
    private int slotsPerTaskManager = 2;
    private Optional<Integer> restPort = Optional.empty();
    private Optional<Path> directory = Optional.empty();
    private final Map<String, String> settings = new LinkedHashMap<>();

    private Builder() {}

    /** How many TaskManagers start with the cluster; default 2. */
    public Builder taskManagers(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("taskManagers must be 0 or more, not " + count);
      }
      this.taskManagers = count;
      return this;
    }

    /** {@code taskmanager.numberOfTaskSlots}; default 2. */
    public Builder slotsPerTaskManager(int slots) {
      if (slots < 1) {
        throw new IllegalArgumentException("slotsPerTaskManager must be 1 or more, not " + slots);
      }
      this.slotsPerTaskManager = slots;
      return this;
    }

    /** A fixed REST port (e.g. 8081) instead of a free one. */
    public Builder restPort(int port) {
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("restPort must be 1-65535, not " + port);
      }
      this.restPort = Optional.of(port);
      return this;
    }

    /**
     * Keeps the cluster's files in this directory (created if needed, kept after close) instead of
     * a temporary one. Its {@code conf/}, {@code log/} and {@code tmp/} are written anew.
     */
    public Builder directory(Path path) {
      this.directory = Optional.of(requireNonNull(path, "path is null"));
      return this;
    }

    /**
     * A Flink setting for the cluster's {@code config.yaml}, e.g. {@code
     * taskmanager.memory.process.size: 2g} or a restart strategy; overrides the harness's value.
     */
    public Builder set(String key, String value) {
      settings.put(requireNonNull(key, "key is null"), requireNonNull(value, "value is null"));
      return this;
    }

    /**
     * Starts the JobManager, waits until its ResourceManager answers, starts the TaskManagers and
     * waits until all are registered with their slots.
     *
     * @throws IllegalStateException when the cluster does not start within 2 minutes (or a process
     *     exits); the message holds the tails of the processes' logs
     */
    public FlinkCluster start() {
      List<Path> classpath = readClasspath();
      boolean temporary = directory.isEmpty();
      Path home;
      try {
        home =
            temporary
                ? Files.createTempDirectory("floe-flink-")
                : Files.createDirectories(directory.get()).toAbsolutePath();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a directory for the Flink cluster", e);
      }
      boolean started = false;
      try {
        IllegalStateException lastFailure = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
          try {
            FlinkCluster cluster = launch(home, temporary, classpath);
            started = true;
            return cluster;
          } catch (IllegalStateException failure) {
            lastFailure = failure;
            // A free port taken by another process between the check and the bind: try others.
            if (restPort.isPresent() || !failure.getMessage().contains("BindException")) {
              break;
            }
          }
        }
        throw requireNonNull(lastFailure, "no start attempt was made");
      } finally {
        if (!started && temporary) {
          ServerProcesses.deleteRecursively(home);
        }
      }
    }

    private FlinkCluster launch(Path home, boolean temporary, List<Path> classpath) {
      Path conf = home.resolve("conf");
      ServerProcesses.deleteRecursively(conf);
      ServerProcesses.deleteRecursively(home.resolve("log"));
      Map<String, String> configuration = writeConfiguration(home, conf);
      HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();
      // Both at once: each is a JVM start of its own.
      Process jobManagerUtils = LaunchParameters.start("GET_JM_RESOURCE_PARAMS", home, classpath);
      Process taskManagerUtils = LaunchParameters.start("GET_TM_RESOURCE_PARAMS", home, classpath);
      LaunchParameters memory;
      LaunchParameters taskManagerLaunch;
      try {
        memory = LaunchParameters.await(jobManagerUtils, "GET_JM_RESOURCE_PARAMS", home);
        taskManagerLaunch =
            LaunchParameters.await(taskManagerUtils, "GET_TM_RESOURCE_PARAMS", home);
      } finally {
        jobManagerUtils.destroyForcibly();
        taskManagerUtils.destroyForcibly();
      }
      List<String> arguments = new ArrayList<>();
      arguments.addAll(memory.dynamicConfigs());
      arguments.addAll(List.of("--configDir", conf.toString(), "--executionMode", "cluster"));
      ClusterProcess jobManager =
          ClusterProcess.start(
              "jobmanager",
              home,
              // the JobManager's watchdog removes the directory (with the uploaded job jars)
              temporary ? Optional.of(home) : Optional.empty(),
              classpath,
              memory.jvmParameters(),
              javaOptions(configuration, "jobmanager"),
              JOB_MANAGER_CLASS,
              arguments);
      FlinkCluster cluster =
          new FlinkCluster(
              home, temporary, classpath, configuration, taskManagerLaunch, jobManager, http);
      try {
        synchronized (cluster) {
          // The TaskManagers start once the ResourceManager answers: started with the JobManager
          // they would compete with it for 2 cores and retry their registration, no sooner.
          cluster.awaitCondition(
              "the JobManager's REST API answers GET /taskmanagers",
              () -> {
                failIfExited(jobManager);
                try {
                  cluster.registeredTaskManagers();
                  return true;
                } catch (IOException notYet) {
                  return false;
                }
              });
          List<TaskManager> started = new ArrayList<>();
          for (int i = 0; i < taskManagers; i++) {
            started.add(cluster.launchTaskManager());
          }
          cluster.awaitRegistered(started);
        }
        return cluster;
      } catch (RuntimeException failure) {
        cluster.closeProcessesOnly();
        throw failure;
      }
    }

    /** Writes conf/config.yaml and conf/log4j.properties; returns what config.yaml holds. */
    private Map<String, String> writeConfiguration(Path home, Path conf) {
      Path tmp = home.resolve("tmp");
      Map<String, String> values = new LinkedHashMap<>();
      values.put("jobmanager.rpc.address", HOST);
      values.put("jobmanager.bind-host", HOST);
      values.put("jobmanager.rpc.port", Integer.toString(ServerProcesses.freePort()));
      values.put("jobmanager.memory.process.size", "768m");
      values.put("rest.address", HOST);
      values.put("rest.bind-address", HOST);
      values.put(REST_PORT, Integer.toString(restPort.orElseGet(ServerProcesses::freePort)));
      values.put("blob.server.port", "0");
      values.put("taskmanager.host", HOST);
      values.put("taskmanager.bind-host", HOST);
      values.put("taskmanager.rpc.port", "0");
      values.put("taskmanager.data.port", "0");
      values.put(SLOTS, Integer.toString(slotsPerTaskManager));
      // Small processes: 2 cores, a few JVMs. Streaming jobs with heap state use no managed
      // memory, so most of the TaskManager's Flink memory goes to the task heap.
      values.put("taskmanager.memory.process.size", "1280m");
      values.put("taskmanager.memory.managed.size", "64m");
      // A TaskManager killed with kill -9 is noticed within seconds (failed heartbeat RPCs), a
      // silent one within 30 s.
      values.put("heartbeat.interval", "2 s");
      values.put("heartbeat.timeout", "30 s");
      values.put("io.tmp.dirs", tmp.toString());
      values.put("web.tmpdir", tmp.toString());
      values.put("blob.storage.directory", tmp.toString());
      values.put("env.java.opts.all", JAVA_17_OPTIONS);
      values.putAll(settings);
      try {
        Files.createDirectories(conf);
        Files.createDirectories(tmp);
        List<String> lines = new ArrayList<>();
        lines.add(
            "# Written by Floe's FlinkCluster (Flink 1.20 reads config.yaml: standard YAML).");
        new TreeMap<>(values)
            .forEach((key, value) -> lines.add(key + ": '" + value.replace("'", "''") + "'"));
        Files.write(conf.resolve("config.yaml"), lines, StandardCharsets.UTF_8);
        try (InputStream log4j = FlinkCluster.class.getResourceAsStream(LOG4J_RESOURCE)) {
          if (log4j == null) {
            throw new IllegalStateException(LOG4J_RESOURCE + " is missing from floe-testing");
          }
          Files.write(conf.resolve("log4j.properties"), log4j.readAllBytes());
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the Flink configuration in " + conf, e);
      }
      return Map.copyOf(values);
    }

    private static List<Path> readClasspath() {
      try (InputStream list = FlinkCluster.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
        if (list == null) {
          throw new IllegalStateException(
              CLASSPATH_RESOURCE
                  + " is missing from floe-testing's classes: build floe-testing with Maven"
                  + " (it lists the Flink jars of the cluster)");
        }
        List<Path> jars =
            Arrays.stream(new String(list.readAllBytes(), StandardCharsets.UTF_8).trim().split(":"))
                .map(Path::of)
                .toList();
        for (Path jar : jars) {
          if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                jar + " (on the Flink cluster's classpath) is missing: build floe-testing again");
          }
        }
        return jars;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + CLASSPATH_RESOURCE, e);
      }
    }
  }

  /** Stops what started, without deleting the directory: the caller reports its logs. */
  private synchronized void closeProcessesOnly() {
    closed = true;
    List<ClusterProcess> processes = new ArrayList<>();
    taskManagers.forEach(taskManager -> processes.add(taskManager.process));
    processes.add(jobManager);
    taskManagers.clear();
    stopAll(processes);
  }
}
