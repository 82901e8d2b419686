package dev.floe.core.source;

import static java.util.Objects.requireNonNull;

import java.util.List;

/** The checklist for one source; {@link #passed()} when no required check failed. */
public record SourceReport(String source, List<SourceCheck> checks) {

  public SourceReport {
    requireNonNull(source, "source is null");
    checks = List.copyOf(requireNonNull(checks, "checks is null"));
  }

  public boolean passed() {
    return failures().isEmpty();
  }

  public List<SourceCheck> failures() {
    return checks.stream().filter(check -> check.status() == SourceCheck.Status.FAIL).toList();
  }
}
