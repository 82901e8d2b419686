package dev.floe.server.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Alerts, their delivery attempts and silences, kept for {@code keeper.history-retention}. Part of
 * the keeper store ({@link KeeperStore#alerts()}): thread-safe, every method blocks on the database
 * and throws {@link dev.floe.core.error.FloeException} (SOURCE_UNAVAILABLE) when it cannot be
 * reached.
 */
public interface AlertStore {

  /** Stores a new alert; returns it with its id. */
  AlertRecord insert(AlertRecord alert);

  /** Saves an alert's state, message and times. */
  void update(AlertRecord alert);

  Optional<AlertRecord> alert(long id);

  /** Every alert firing now. */
  List<AlertRecord> firing();

  /** The newest alerts first; only those in {@code state} when given. */
  List<AlertRecord> alerts(Optional<String> state, int limit);

  /** For each subject of the rule, the latest time one of its alerts was acknowledged. */
  Map<String, Instant> acknowledged(String rule);

  /** Stores a delivery attempt; returns it with its id. */
  DeliveryRecord insert(DeliveryRecord delivery);

  /** Saves a delivery attempt's outcome. */
  void update(DeliveryRecord delivery);

  /** The alert's delivery attempts, oldest first. */
  List<DeliveryRecord> deliveries(long alertId);

  /** The channel's newest delivery attempts first. */
  List<DeliveryRecord> channelDeliveries(String channel, int limit);

  SilenceRecord insert(SilenceRecord silence);

  /** Whether a silence of this id was there. */
  boolean deleteSilence(long id);

  /** The silences that hold at {@code now}, newest first. */
  List<SilenceRecord> silences(Instant now);

  /** Deletes alerts resolved, attempts made and silences ended before {@code before}. */
  void prune(Instant before);
}
