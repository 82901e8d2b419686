package dev.floe.bench;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a benchmark run gets: a scratch directory (deleted afterwards) and the {@code --name=value}
 * parameters from the command line.
 */
record BenchmarkContext(Path scratchDirectory, Map<String, String> parameters) {

  BenchmarkContext {
    requireNonNull(scratchDirectory, "scratchDirectory is null");
    parameters = Map.copyOf(requireNonNull(parameters, "parameters is null"));
  }

  int intParameter(String name, int defaultValue) {
    String value = parameters.get(name);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--" + name + " must be a whole number, got '" + value + "'");
    }
  }

  /** A parameter that takes one of {@code choices}; the first is the default. */
  String choiceParameter(String name, List<String> choices) {
    String value = parameters.getOrDefault(name, choices.get(0));
    if (!choices.contains(value)) {
      throw new IllegalArgumentException(
          "--" + name + " must be one of " + String.join(", ", choices) + ", got '" + value + "'");
    }
    return value;
  }

  /**
   * The {@code --floe.optimize.*=VALUE} parameters, as table properties for the table Floe keeps
   * (e.g. {@code --floe.optimize.deletes.rewrite-file-ratio=0}), to measure another policy.
   */
  Map<String, String> policyOverrides() {
    Map<String, String> overrides = new TreeMap<>();
    parameters.forEach(
        (name, value) -> {
          if (name.startsWith("floe.optimize.")) {
            overrides.put(name, value);
          }
        });
    return overrides;
  }
}
