package dev.floe.core.verify;

/** The kinds of difference, with their names in the JSON report. */
public enum DifferenceKind {
  MISSING_IN_LAKE("missing_in_lake", "missing in lake"),
  EXTRA_IN_LAKE("extra_in_lake", "extra in lake"),
  DIFFERENT("different", "different content");

  private final String jsonName;
  private final String label;

  DifferenceKind(String jsonName, String label) {
    this.jsonName = jsonName;
    this.label = label;
  }

  public String jsonName() {
    return jsonName;
  }

  public String label() {
    return label;
  }
}
