package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Canal's flat JSON messages (Canal's {@code canal.mq.flatMessage=true}):
 *
 * <pre>
 * {"data": [{"id": "1", "name": "a"}], "old": [{"name": "b"}], "database": "shop",
 *  "table": "orders", "type": "UPDATE", "isDdl": false, "pkNames": ["id"],
 *  "mysqlType": {"id": "bigint(20)", "name": "varchar(64)"}, "es": 1589373560000, "ts": ...}
 * </pre>
 *
 * Every value is MySQL's text; {@code mysqlType} gives each column's MySQL type, mapped as the
 * MySQL sync maps it. One message may carry several rows of one statement. {@code old} holds, per
 * row of an update, the previous values of the columns that changed. DDL messages ({@code isDdl})
 * and types other than INSERT, UPDATE and DELETE carry no rows and are skipped.
 */
final class CanalJsonDecoder implements KafkaMessageDecoder {

  private static final long serialVersionUID = 1L;

  private final ZoneId serverTimeZone;

  /**
   * @param serverTimeZone the zone of the MySQL server Canal read: TIMESTAMP values are its
   *     wall-clock text
   */
  CanalJsonDecoder(ZoneId serverTimeZone) {
    this.serverTimeZone = requireNonNull(serverTimeZone, "serverTimeZone is null");
  }

  @Override
  public Decoded decode(byte[] key, byte[] value) {
    if (value == null) {
      return new Skipped("a tombstone (no value)");
    }
    Optional<JsonNode> parsed = KafkaJson.parse(value);
    if (parsed.isEmpty() || !parsed.get().isObject()) {
      return new Rejected(KafkaJson.notJson(value, "Canal JSON"));
    }
    JsonNode message = parsed.get();
    if (message.path("isDdl").asBoolean(false)) {
      return new Skipped("a DDL message (" + message.path("type").asText("") + ")");
    }
    String type = message.path("type").asText("").toUpperCase(Locale.ROOT);
    DecodedChange.Kind kind;
    switch (type) {
      case "INSERT" -> kind = DecodedChange.Kind.INSERT;
      case "UPDATE" -> kind = DecodedChange.Kind.UPDATE;
      case "DELETE" -> kind = DecodedChange.Kind.DELETE;
      case "" -> {
        return new Rejected("a Canal JSON message needs a \"type\"; this one has none");
      }
      default -> {
        return new Skipped("a Canal " + type + " message carries no rows");
      }
    }
    Optional<String> missing = KafkaJson.missingText(message, "database", "table");
    if (missing.isPresent()) {
      return new Rejected("a Canal JSON " + type + " message needs \"" + missing.get() + "\"");
    }
    String database = message.path("database").asText();
    String table = message.path("table").asText();
    List<String> primaryKey = new ArrayList<>();
    message.path("pkNames").forEach(name -> primaryKey.add(name.asText()));
    if (primaryKey.isEmpty()) {
      return new Rejected(
          "the Canal message of "
              + database
              + "."
              + table
              + " names no primary key (\"pkNames\" is empty or missing): updates and deletes"
              + " could not be matched to rows");
    }
    JsonNode types = message.path("mysqlType");
    if (!types.isObject() || types.isEmpty()) {
      return new Rejected(
          "the Canal message of " + database + "." + table + " has no \"mysqlType\"");
    }
    List<SourceColumn> columns = new ArrayList<>();
    try {
      for (Iterator<Map.Entry<String, JsonNode>> it = types.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> column = it.next();
        columns.add(
            KafkaValues.column(
                column.getKey(),
                column.getValue().asText(),
                !primaryKey.contains(column.getKey())));
      }
    } catch (IllegalArgumentException wrong) {
      return new Rejected(database + "." + table + ": " + wrong.getMessage());
    }
    for (String name : primaryKey) {
      if (!types.has(name)) {
        return new Rejected(
            database + "." + table + ": primary-key column " + name + " has no \"mysqlType\"");
      }
    }
    SourceTable source = new SourceTable(database, table, columns, primaryKey);
    JsonNode data = message.path("data");
    if (!data.isArray() || data.isEmpty()) {
      return new Rejected(
          "the Canal " + type + " message of " + source.qualifiedName() + " has no \"data\"");
    }
    JsonNode old = message.path("old");
    long millis = message.path("es").asLong(0);
    List<DecodedChange> changes = new ArrayList<>();
    for (int i = 0; i < data.size(); i++) {
      String where = source.qualifiedName() + " row " + (i + 1) + " of " + data.size();
      try {
        Map<String, Object> row = row(source, data.get(i), where);
        switch (kind) {
          case INSERT ->
              changes.add(
                  new DecodedChange(source, kind, Optional.empty(), Optional.of(row), millis));
          case DELETE ->
              changes.add(
                  new DecodedChange(source, kind, Optional.of(row), Optional.empty(), millis));
          case UPDATE -> {
            Map<String, Object> before = new LinkedHashMap<>(row);
            JsonNode previous = old.isArray() && i < old.size() ? old.get(i) : null;
            if (previous != null && previous.isObject()) {
              for (Iterator<String> it = previous.fieldNames(); it.hasNext(); ) {
                String name = it.next();
                SourceColumn column = find(source, name, where);
                before.put(
                    name, KafkaValues.value(source, column, previous.get(name), serverTimeZone));
              }
            }
            requireKey(source, before, where + " (before the update)");
            changes.add(
                new DecodedChange(source, kind, Optional.of(before), Optional.of(row), millis));
          }
        }
      } catch (IllegalArgumentException wrong) {
        return new Rejected(wrong.getMessage());
      }
    }
    return new Changes(changes);
  }

  private Map<String, Object> row(SourceTable source, JsonNode values, String where) {
    if (!values.isObject()) {
      throw new IllegalArgumentException(where + " is not a JSON object");
    }
    Map<String, Object> row = new LinkedHashMap<>();
    for (SourceColumn column : source.columns()) {
      if (values.has(column.name())) {
        try {
          row.put(
              column.name(),
              KafkaValues.value(source, column, values.get(column.name()), serverTimeZone));
        } catch (IllegalArgumentException wrong) {
          throw new IllegalArgumentException(where + ": " + wrong.getMessage(), wrong);
        }
      }
    }
    for (Iterator<String> it = values.fieldNames(); it.hasNext(); ) {
      find(source, it.next(), where);
    }
    requireKey(source, row, where);
    return row;
  }

  private static SourceColumn find(SourceTable source, String name, String where) {
    return source.columns().stream()
        .filter(column -> column.name().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    where + ": column " + name + " has no type in \"mysqlType\""));
  }

  static void requireKey(SourceTable source, Map<String, Object> row, String where) {
    for (String name : source.primaryKey()) {
      if (row.get(name) == null) {
        throw new IllegalArgumentException(
            where + " has no value for its primary-key column " + name);
      }
    }
  }
}
