package dev.floe.cli;

import java.nio.file.Path;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.AppenderComponentBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;
import org.apache.logging.log4j.jul.Log4jBridgeHandler;

/**
 * Where log lines go. By default only Floe's own warnings reach stderr (libraries stay quiet); with
 * {@code --verbose}, everything down to Floe's debug lines, with stack traces, goes to a log file
 * under the data directory.
 */
final class Logging {

  private Logging() {}

  /**
   * Sends java.util.logging records (the MySQL binlog client's, among others) through log4j, so
   * they obey the same rules as every other library's: silent on the console, in the log file with
   * {@code --verbose}. JUL's own console handler is removed.
   */
  static void routeJavaUtilLogging() {
    Log4jBridgeHandler.install(true, null, true);
  }

  /** Sends detailed logs to {@code file}; returns the file. */
  static Path verboseTo(Path file) {
    ConfigurationBuilder<BuiltConfiguration> builder =
        ConfigurationBuilderFactory.newConfigurationBuilder();
    builder.setStatusLevel(Level.ERROR);
    AppenderComponentBuilder appender =
        builder
            .newAppender("file", "File")
            .addAttribute("fileName", file.toString())
            .addAttribute("append", true)
            .add(
                builder
                    .newLayout("PatternLayout")
                    .addAttribute(
                        "pattern", "%d{ISO8601} %-5level [%t] %c{1.} - %msg%n%throwable"));
    builder.add(appender);
    builder.add(
        builder
            .newLogger("dev.floe", Level.DEBUG)
            .add(builder.newAppenderRef("file"))
            .addAttribute("additivity", false));
    builder.add(builder.newRootLogger(Level.INFO).add(builder.newAppenderRef("file")));
    Configurator.reconfigure(builder.build());
    LoggerContext.getContext(false).updateLoggers();
    return file;
  }
}
