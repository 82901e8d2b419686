package dev.floe.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;

/** One in-process run of the real CLI: exit code, stdout and stderr. */
record CliRun(int exitCode, String out, String err) {

  static CliRun run(Path workingDirectory, Map<String, String> environment, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exitCode =
        new FloeCli(new PrintWriter(out), new PrintWriter(err), environment, workingDirectory)
            .run(args);
    return new CliRun(exitCode, out.toString(), err.toString());
  }

  static CliRun run(Path workingDirectory, String... args) {
    return run(workingDirectory, Map.of(), args);
  }
}
