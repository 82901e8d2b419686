package dev.floe.sync;

import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/** A Flink metrics reporter that keeps every registered metric, for tests to read. */
public final class CapturingReporter implements MetricReporter {

  private static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();

  /** The metric whose identifier ends with {@code suffix}, if registered. */
  static Optional<Metric> find(String suffix) {
    return METRICS.entrySet().stream()
        .filter(entry -> entry.getKey().endsWith(suffix))
        .map(Map.Entry::getValue)
        .findFirst();
  }

  /** Every registered metric identifier, for failure messages. */
  static java.util.Set<String> identifiers() {
    return new java.util.TreeSet<>(METRICS.keySet());
  }

  @Override
  public void open(MetricConfig config) {}

  @Override
  public void close() {}

  @Override
  public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
    METRICS.put(group.getMetricIdentifier(name), metric);
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

  /** Found by Flink through {@code META-INF/services}. */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new CapturingReporter();
    }
  }
}
