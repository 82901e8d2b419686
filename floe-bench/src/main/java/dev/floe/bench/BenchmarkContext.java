package dev.floe.bench;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

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
}
