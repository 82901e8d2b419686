package dev.floe.cli;

import static java.util.Objects.requireNonNull;

import dev.floe.config.ConfigLoader;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.error.FloeException;
import dev.floe.iceberg.state.FileTableStateStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The root {@code floe} command: global options and the composition root every subcommand reaches
 * through {@code @ParentCommand}. It builds the {@link FloeContext} once, on first use (after the
 * options are parsed); {@link FloeCli} closes it when the command is done.
 */
@Command(
    name = "floe",
    mixinStandardHelpOptions = true,
    versionProvider = FloeCommand.Version.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Floe keeps an Apache Iceberg lakehouse fed, healthy and trustworthy.",
      "Global options go before the command; every command has --help."
    },
    subcommands = {
      DemoCommand.class,
      DoctorCommand.class,
      SyncCommand.class,
      VerifyCommand.class,
      ConfigCommand.class,
      OptimizeCommand.class,
      ExpireCommand.class,
      CleanOrphansCommand.class,
      CleanMetadataCommand.class,
      RemoveDanglingDeletesCommand.class,
      CheckHistoryCommand.class,
      ServeCommand.class,
      OptimizerCommand.class,
      SqlCommand.class
    })
public final class FloeCommand implements Runnable {

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "The floe.yaml to use. Without it, Floe runs on embedded defaults.")
  Path configFile;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description =
          "Where the embedded catalog, warehouse, state and logs live (default: ./floe-data).")
  Path dataDirectory;

  @Option(
      names = "--verbose",
      description = "Write a detailed log, with stack traces, to <data-dir>/logs/floe.log.")
  boolean verbose;

  @Spec CommandSpec spec;

  private final Map<String, String> environment;
  private final Path workingDirectory;
  private final Clock clock;
  private FloeSettings settings;
  private FloeContext context;
  private Optional<Path> logFile = Optional.empty();

  FloeCommand(Map<String, String> environment, Path workingDirectory) {
    this(environment, workingDirectory, Clock.systemUTC());
  }

  FloeCommand(Map<String, String> environment, Path workingDirectory, Clock clock) {
    this.environment = requireNonNull(environment, "environment is null");
    this.workingDirectory = requireNonNull(workingDirectory, "workingDirectory is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  /** What the commands share: settings, clock, catalog, state store; built on the first call. */
  FloeContext context() {
    if (context == null) {
      FloeSettings validated = settings();
      context =
          new FloeContext(validated, clock, new FileTableStateStore(validated.dataDirectory()));
    }
    return context;
  }

  /** Closes the context, if a command built it. */
  void closeContext() {
    if (context != null) {
      context.close();
    }
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Called once after parsing, before the command runs. */
  void prepare() {
    Logging.routeJavaUtilLogging();
    if (verbose) {
      Path logs = settings().dataDirectory().resolve("logs");
      try {
        Files.createDirectories(logs);
      } catch (IOException e) {
        throw FloeException.badInput(
            "Cannot create the log directory "
                + logs
                + ": "
                + e.getMessage()
                + ". Choose a writable --data-dir.");
      }
      logFile = Optional.of(Logging.verboseTo(logs.resolve("floe.log")));
    }
  }

  /** The validated settings: from --config, or the embedded defaults; --data-dir wins. */
  FloeSettings settings() {
    if (settings == null) {
      Optional<Path> dataDirectoryOverride = Optional.ofNullable(dataDirectory);
      settings =
          configFile == null
              ? FloeSettings.defaults(
                  workingDirectory.resolve(
                      dataDirectoryOverride.orElse(Path.of(FloeSettings.DEFAULT_DATA_DIRECTORY))))
              : new ConfigLoader(environment)
                  .load(
                      workingDirectory.resolve(configFile),
                      dataDirectoryOverride,
                      workingDirectory);
    }
    return settings;
  }

  Optional<Path> configFile() {
    return Optional.ofNullable(configFile).map(workingDirectory::resolve);
  }

  /** Where relative paths given on the command line are resolved. */
  Path workingDirectory() {
    return workingDirectory;
  }

  Map<String, String> environment() {
    return environment;
  }

  Optional<Path> logFile() {
    return logFile;
  }

  /** Reads the version Maven wrote into {@code version.properties}. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties properties = new Properties();
      try (InputStream in = FloeCommand.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      }
      return new String[] {"Floe " + properties.getProperty("version", "(unknown version)")};
    }
  }
}
