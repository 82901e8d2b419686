package dev.floe.bench;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What a benchmark measured: raw figures, and ratios of Floe against the baseline measured in the
 * same run.
 */
record BenchmarkResult(List<Measurement> measurements, List<Ratio> ratios) {

  BenchmarkResult {
    measurements = List.copyOf(requireNonNull(measurements, "measurements is null"));
    ratios = List.copyOf(requireNonNull(ratios, "ratios is null"));
  }

  /** One raw figure. */
  record Measurement(String name, double value, String unit) {
    Measurement {
      requireNonNull(name, "name is null");
      requireNonNull(unit, "unit is null");
    }
  }

  /**
   * Floe's figure over the baseline's.
   *
   * @param name what is compared
   * @param floe Floe's value
   * @param baseline the baseline's value
   * @param unit the unit of both
   * @param goal the goal, as text (e.g. {@code <= 0.5}); empty when there is none
   */
  record Ratio(String name, double floe, double baseline, String unit, String goal) {
    Ratio {
      requireNonNull(name, "name is null");
      requireNonNull(unit, "unit is null");
      requireNonNull(goal, "goal is null");
    }

    double value() {
      return baseline == 0 ? Double.NaN : floe / baseline;
    }
  }
}
