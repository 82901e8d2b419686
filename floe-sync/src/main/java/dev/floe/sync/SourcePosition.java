package dev.floe.sync;

/**
 * Where one change record was read in its source: a binlog position (the MySQL sync), or a Kafka
 * message's topic, partition and offset. Writers fold the positions of the records they wrote into
 * a {@link SourceProgress} for the committer.
 */
sealed interface SourcePosition permits BinlogPosition, KafkaPosition {

  /**
   * What orders positions: two positions of one stream compare, positions of different streams do
   * not (a binlog is one stream, each Kafka partition is one).
   */
  Object stream();

  /** The progress this position alone stands for. */
  SourceProgress progress();
}
