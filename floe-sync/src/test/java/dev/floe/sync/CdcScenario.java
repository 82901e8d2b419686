package dev.floe.sync;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.testing.KafkaBroker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * A MySQL database's changes as a CDC tool would put them on Kafka, in one of the formats, and the
 * rows the tables hold after them: the expected state a Kafka sync must end with. Tables are {@code
 * db.table} with a {@code bigint} primary key {@code id}; columns are {@code varchar}, {@code int}
 * or {@code bigint}. Messages are keyed by table and primary key, as the tools key them, so a row's
 * changes stay in one partition in order.
 */
final class CdcScenario {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final KafkaFormat format;

  /** Per source table: its columns (name -> MySQL type), in order. */
  private final Map<String, LinkedHashMap<String, String>> columns = new TreeMap<>();

  /** Per source table: the rows by id. */
  private final Map<String, TreeMap<Long, LinkedHashMap<String, Object>>> rows = new TreeMap<>();

  private final List<KafkaBroker.Message> pending = new ArrayList<>();
  private long clock = 1_764_000_000_000L;
  private int changes;

  CdcScenario(KafkaFormat format) {
    this.format = format;
  }

  /** Declares a table (or its new column list, after an ADD COLUMN). */
  CdcScenario table(String table, Map<String, String> definition) {
    columns.put(table, new LinkedHashMap<>(definition));
    rows.computeIfAbsent(table, name -> new TreeMap<>());
    return this;
  }

  CdcScenario insert(String table, long id, Object... values) {
    LinkedHashMap<String, Object> row = row(table, id, values);
    rows.get(table).put(id, row);
    pending.add(message(table, "INSERT", Optional.empty(), Optional.of(row), Map.of()));
    return this;
  }

  /** Sets the given columns ({@code name, value, name, value...}) of an existing row. */
  CdcScenario update(String table, long id, Object... namesAndValues) {
    LinkedHashMap<String, Object> before = rows.get(table).get(id);
    LinkedHashMap<String, Object> after = new LinkedHashMap<>(before);
    Map<String, Object> old = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      String name = (String) namesAndValues[i];
      old.put(name, before.get(name));
      after.put(name, namesAndValues[i + 1]);
    }
    for (String name : columns.get(table).keySet()) {
      after.putIfAbsent(name, null);
    }
    rows.get(table).put(id, after);
    pending.add(message(table, "UPDATE", Optional.of(before), Optional.of(after), old));
    return this;
  }

  CdcScenario delete(String table, long id) {
    LinkedHashMap<String, Object> before = rows.get(table).remove(id);
    pending.add(message(table, "DELETE", Optional.of(before), Optional.empty(), Map.of()));
    return this;
  }

  /** A message the format's tool would also send that carries no row (a DDL, a tombstone). */
  CdcScenario noRowMessage(String table) {
    int dot = table.indexOf('.');
    String db = table.substring(0, dot);
    String name = table.substring(dot + 1);
    String value =
        switch (format) {
          case CANAL_JSON ->
              "{\"data\":null,\"database\":\""
                  + db
                  + "\",\"table\":\""
                  + name
                  + "\",\"type\":\"ALTER\",\"isDdl\":true,\"sql\":\"ALTER TABLE x\"}";
          case DEBEZIUM_JSON -> null; // a tombstone
          case MAXWELL_JSON, JSON ->
              "{\"type\":\"table-alter\",\"database\":\"" + db + "\",\"table\":\"" + name + "\"}";
        };
    pending.add(KafkaBroker.Message.of(table + ":ddl", value));
    return this;
  }

  /** The messages made since the last call, in order. */
  List<KafkaBroker.Message> take() {
    List<KafkaBroker.Message> taken = List.copyOf(pending);
    pending.clear();
    return taken;
  }

  /** How many row changes were made. */
  int changes() {
    return changes;
  }

  Map<String, TreeMap<Long, LinkedHashMap<String, Object>>> expected() {
    return rows;
  }

  /**
   * How an Iceberg table differs from the expected rows of a source table: empty when equal (every
   * column of the table compared as text; a column the source never gave a row a value for is
   * null).
   */
  static Optional<String> difference(
      Table lake, TreeMap<Long, LinkedHashMap<String, Object>> expected) throws Exception {
    lake.refresh();
    Schema schema = lake.schema();
    TreeMap<Long, String> actual = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(lake).build()) {
      for (Record record : records) {
        long id = ((Number) record.getField("id")).longValue();
        String text = text(schema, name -> record.getField(name));
        if (actual.put(id, text) != null) {
          return Optional.of("duplicate key " + id + " in " + lake.name());
        }
      }
    }
    TreeMap<Long, String> wanted = new TreeMap<>();
    expected.forEach((id, row) -> wanted.put(id, text(schema, row::get)));
    if (wanted.equals(actual)) {
      return Optional.empty();
    }
    return Optional.of(
        lake.name()
            + ": "
            + wanted.size()
            + " expected vs "
            + actual.size()
            + " rows; first expected row not in the lake: "
            + wanted.entrySet().stream()
                .filter(entry -> !entry.getValue().equals(actual.get(entry.getKey())))
                .findFirst()
                .map(entry -> entry.getValue() + " (lake: " + actual.get(entry.getKey()) + ")")
                .orElse("none (the lake has rows it should not)"));
  }

  private static String text(Schema schema, java.util.function.Function<String, Object> value) {
    List<String> values = new ArrayList<>();
    for (Types.NestedField column : schema.columns()) {
      Object found = value.apply(column.name());
      values.add(column.name() + "=" + (found == null ? "null" : found.toString()));
    }
    return String.join(",", values);
  }

  private LinkedHashMap<String, Object> row(String table, long id, Object... values) {
    LinkedHashMap<String, Object> row = new LinkedHashMap<>();
    row.put("id", id);
    List<String> names = new ArrayList<>(columns.get(table).keySet());
    for (int i = 1; i < names.size(); i++) {
      row.put(names.get(i), i - 1 < values.length ? values[i - 1] : null);
    }
    return row;
  }

  private KafkaBroker.Message message(
      String table,
      String kind,
      Optional<LinkedHashMap<String, Object>> before,
      Optional<LinkedHashMap<String, Object>> after,
      Map<String, Object> old) {
    changes++;
    clock += 7;
    int dot = table.indexOf('.');
    String db = table.substring(0, dot);
    String name = table.substring(dot + 1);
    long id = (Long) after.or(() -> before).orElseThrow().get("id");
    ObjectNode message = JSON.createObjectNode();
    String key;
    switch (format) {
      case CANAL_JSON -> {
        key = table + ":" + id;
        ArrayNode data = message.putArray("data");
        data.add(canalRow(after.or(() -> before).orElseThrow()));
        if (kind.equals("UPDATE")) {
          message.putArray("old").add(canalRow(old));
        } else {
          message.putNull("old");
        }
        message.put("database", db).put("table", name).put("type", kind).put("isDdl", false);
        message.putArray("pkNames").add("id");
        ObjectNode types = message.putObject("mysqlType");
        columns.get(table).forEach(types::put);
        message.put("es", clock).put("ts", clock + 3);
      }
      case DEBEZIUM_JSON -> {
        ObjectNode keyNode = JSON.createObjectNode().put("id", id);
        key = keyNode.toString();
        message.set(
            "before",
            before
                .<com.fasterxml.jackson.databind.JsonNode>map(this::jsonRow)
                .orElse(JSON.nullNode()));
        message.set(
            "after",
            after
                .<com.fasterxml.jackson.databind.JsonNode>map(this::jsonRow)
                .orElse(JSON.nullNode()));
        message
            .putObject("source")
            .put("version", "2.5.0.Final")
            .put("connector", "mysql")
            .put("db", db)
            .put("table", name)
            .put("ts_ms", clock);
        message.put(
            "op",
            switch (kind) {
              case "INSERT" -> "c";
              case "UPDATE" -> "u";
              default -> "d";
            });
        message.put("ts_ms", clock + 3);
      }
      default -> {
        key =
            JSON.createObjectNode()
                .put("database", db)
                .put("table", name)
                .put("pk.id", id)
                .toString();
        message.put("database", db).put("table", name).put("type", kind.toLowerCase());
        message.put("ts", clock / 1000).put("xid", changes).put("commit", true);
        message.set("data", jsonRow(after.or(() -> before).orElseThrow()));
        if (kind.equals("UPDATE")) {
          message.set("old", jsonRow(old));
        }
        message.putArray("primary_key_columns").add("id");
      }
    }
    return KafkaBroker.Message.of(key, message.toString());
  }

  private ObjectNode canalRow(Map<String, Object> row) {
    ObjectNode node = JSON.createObjectNode();
    row.forEach(
        (column, value) -> {
          if (value == null) {
            node.putNull(column);
          } else {
            node.put(column, value.toString());
          }
        });
    return node;
  }

  private ObjectNode jsonRow(Map<String, Object> row) {
    ObjectNode node = JSON.createObjectNode();
    row.forEach(
        (column, value) -> {
          if (value == null) {
            node.putNull(column);
          } else if (value instanceof Number number) {
            node.put(column, number.longValue());
          } else {
            node.put(column, value.toString());
          }
        });
    return node;
  }
}
