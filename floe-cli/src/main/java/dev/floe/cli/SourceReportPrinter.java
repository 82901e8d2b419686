package dev.floe.cli;

import dev.floe.core.source.SourceCheck;
import dev.floe.core.source.SourceReport;
import java.io.PrintWriter;

/** Prints a source checklist: one line a check, the fix under each failure or warning. */
final class SourceReportPrinter {

  private SourceReportPrinter() {}

  static void print(SourceReport report, PrintWriter out) {
    out.println("Checking " + report.source());
    out.println();
    int width = report.checks().stream().mapToInt(check -> check.name().length()).max().orElse(0);
    for (SourceCheck check : report.checks()) {
      out.printf(
          "  %-5s %-" + width + "s  %s%n", check.status().label(), check.name(), check.detail());
      check.fix().ifPresent(fix -> out.println("        fix: " + fix));
    }
    out.println();
    int failures = report.failures().size();
    if (failures == 0) {
      out.println("Every required check passed: this source is ready for real-time sync.");
    } else {
      out.println(
          failures
              + (failures == 1 ? " required check failed" : " required checks failed")
              + ": apply the fixes above and run floe doctor again.");
    }
  }
}
