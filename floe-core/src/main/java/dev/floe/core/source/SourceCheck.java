package dev.floe.core.source;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * One line of the source checklist.
 *
 * @param name what is checked, e.g. {@code binlog_format}
 * @param status the outcome
 * @param detail what was observed, e.g. {@code STATEMENT (needs ROW)}
 * @param fix how to fix a failure or warning; empty when nothing is to be done
 */
public record SourceCheck(String name, Status status, String detail, Optional<String> fix) {

  /** The outcome of a check. Only {@link #FAIL} makes the source unusable. */
  public enum Status {
    PASS("ok"),
    WARN("warn"),
    FAIL("FAIL"),
    INFO("info");

    private final String label;

    Status(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  public SourceCheck {
    requireNonNull(name, "name is null");
    requireNonNull(status, "status is null");
    requireNonNull(detail, "detail is null");
    requireNonNull(fix, "fix is null");
  }

  public static SourceCheck pass(String name, String detail) {
    return new SourceCheck(name, Status.PASS, detail, Optional.empty());
  }

  public static SourceCheck info(String name, String detail) {
    return new SourceCheck(name, Status.INFO, detail, Optional.empty());
  }

  public static SourceCheck warn(String name, String detail, String fix) {
    return new SourceCheck(name, Status.WARN, detail, Optional.of(fix));
  }

  public static SourceCheck fail(String name, String detail, String fix) {
    return new SourceCheck(name, Status.FAIL, detail, Optional.of(fix));
  }
}
