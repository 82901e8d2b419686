package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import java.time.Instant;
import java.util.Optional;

/**
 * A table's figures at one evaluation, for its health over time.
 *
 * @param key catalog and table
 * @param at when the evaluation ran
 * @param health 0-100
 * @param dataFiles live data files
 * @param smallFiles of them, small
 * @param deleteFiles live delete files
 * @param backlogBytes bytes the planner would rewrite
 * @param sourceWatermark the {@code floe.source-watermark-ms} of the table's newest snapshot that
 *     records one (a sync's commit; optimize commits carry none); empty when none does
 */
public record HealthSample(
    TableKey key,
    Instant at,
    int health,
    long dataFiles,
    long smallFiles,
    long deleteFiles,
    long backlogBytes,
    Optional<Instant> sourceWatermark) {

  public HealthSample {
    requireNonNull(key, "key is null");
    requireNonNull(at, "at is null");
    requireNonNull(sourceWatermark, "sourceWatermark is null");
  }
}
