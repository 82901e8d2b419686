package dev.floe.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * Debezium JSON change messages (MySQL connector, JSON converter without the schema envelope) of
 * one table {@code shop.orders} over a key space, and the table's state after them: a snapshot of
 * {@code keys} rows ({@code op: r}), then changes of which 20 % insert a new key (the next
 * auto-increment id, as MySQL assigns them), 70 % update a random existing row and 10 % delete one.
 *
 * <p>Deterministic for a seed, except {@code produced_ms}, which the sender sets when it sends a
 * message (the freshness measurement reads it back from the table). Not thread-safe.
 */
final class DebeziumWorkload {

  static final String DATABASE = "shop";
  static final String TABLE = "orders";

  private static final String[] STATUSES = {"new", "paid", "packed", "shipped", "delivered"};

  /** One row of shop.orders. */
  record Row(
      long id, long customerId, String status, String amount, String note, long producedMillis) {

    String json() {
      return String.format(
          Locale.ROOT,
          "{\"id\":%d,\"customer_id\":%d,\"status\":\"%s\",\"amount\":%s,\"note\":\"%s\","
              + "\"produced_ms\":%d}",
          id,
          customerId,
          status,
          amount,
          note,
          producedMillis);
    }

    double amountValue() {
      return Double.parseDouble(amount);
    }
  }

  /** One message: its key and value as text, and the key's row after it (empty: deleted). */
  record Change(long id, String key, String value, Optional<Row> after) {}

  private final Random random;
  private final Map<Long, Row> rows;
  private final List<Long> live;
  private final Map<Long, Integer> livePosition;
  private long nextId;
  private long binlogPosition;

  private DebeziumWorkload(
      Random random,
      Map<Long, Row> rows,
      List<Long> live,
      Map<Long, Integer> livePosition,
      long nextId,
      long binlogPosition) {
    this.random = random;
    this.rows = rows;
    this.live = live;
    this.livePosition = livePosition;
    this.nextId = nextId;
    this.binlogPosition = binlogPosition;
  }

  static DebeziumWorkload empty(long seed) {
    return new DebeziumWorkload(
        new Random(seed), new HashMap<>(), new ArrayList<>(), new HashMap<>(), 1, 4);
  }

  /**
   * An independent copy of the state, whose next changes are drawn with {@code seed}: two copies
   * made with the same seed make the same changes.
   */
  DebeziumWorkload copy(long seed) {
    return new DebeziumWorkload(
        new Random(seed),
        new HashMap<>(rows),
        new ArrayList<>(live),
        new HashMap<>(livePosition),
        nextId,
        binlogPosition);
  }

  /** The initial snapshot's next row ({@code op: r}), a new key. */
  Change snapshotRow(long producedMillis) {
    Row row = newRow(nextId++, producedMillis);
    put(row);
    return message(row.id(), "r", null, row, producedMillis);
  }

  /** The next change of the mix; only inserts while the table is empty. */
  Change nextChange(long producedMillis) {
    int draw = random.nextInt(100);
    if (live.isEmpty() || draw < 20) {
      Row row = newRow(nextId++, producedMillis);
      put(row);
      return message(row.id(), "c", null, row, producedMillis);
    }
    long id = live.get(random.nextInt(live.size()));
    Row before = rows.get(id);
    if (draw < 90) {
      Row after =
          new Row(
              id,
              before.customerId(),
              STATUSES[random.nextInt(STATUSES.length)],
              amount(),
              note(),
              producedMillis);
      put(after);
      return message(id, "u", before, after, producedMillis);
    }
    remove(id);
    return message(id, "d", before, null, producedMillis);
  }

  /** The table's rows now, by id. */
  Map<Long, Row> rows() {
    return Map.copyOf(rows);
  }

  private Row newRow(long id, long producedMillis) {
    return new Row(id, 1 + random.nextInt(50_000), STATUSES[0], amount(), note(), producedMillis);
  }

  private String amount() {
    int cents = random.nextInt(1_000_000);
    return String.format(Locale.ROOT, "%d.%02d", cents / 100, cents % 100);
  }

  private String note() {
    return "note-" + Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
  }

  private void put(Row row) {
    if (rows.put(row.id(), row) == null) {
      livePosition.put(row.id(), live.size());
      live.add(row.id());
    }
  }

  private void remove(long id) {
    rows.remove(id);
    int position = livePosition.remove(id);
    long last = live.remove(live.size() - 1);
    if (last != id) {
      live.set(position, last);
      livePosition.put(last, position);
    }
  }

  private Change message(long id, String op, Row before, Row after, long producedMillis) {
    binlogPosition += 180;
    String value =
        String.format(
            Locale.ROOT,
            "{\"before\":%s,\"after\":%s,\"source\":{\"version\":\"2.7.3.Final\","
                + "\"connector\":\"mysql\",\"name\":\"bench\",\"ts_ms\":%d,\"snapshot\":\"%s\","
                + "\"db\":\"%s\",\"sequence\":null,\"table\":\"%s\",\"server_id\":1,"
                + "\"gtid\":null,\"file\":\"mysql-bin.000003\",\"pos\":%d,\"row\":0,"
                + "\"thread\":7,\"query\":null},\"op\":\"%s\",\"ts_ms\":%d,\"transaction\":null}",
            before == null ? "null" : before.json(),
            after == null ? "null" : after.json(),
            producedMillis,
            op.equals("r") ? "true" : "false",
            DATABASE,
            TABLE,
            binlogPosition,
            op,
            producedMillis);
    return new Change(id, "{\"id\":" + id + "}", value, Optional.ofNullable(after));
  }
}
