package dev.floe.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** The {@code floe} command's entry point: runs the CLI and exits with its exit code. */
public final class FloeMain {

  private FloeMain() {}

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    int exitCode = new FloeCli(out, err, System.getenv(), Path.of("").toAbsolutePath()).run(args);
    out.flush();
    err.flush();
    System.exit(exitCode);
  }
}
