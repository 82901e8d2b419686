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
 * Maxwell's JSON messages:
 *
 * <pre>
 * value {"database": "shop", "table": "orders", "type": "update", "ts": 1449786341,
 *        "data": {"id": 1, "note": "new"}, "old": {"note": "old"},
 *        "primary_key_columns": ["id"]}            (with output_primary_key_columns)
 * key   {"database": "shop", "table": "orders", "pk.id": 1}   (Maxwell's default "hash" key)
 * </pre>
 *
 * The primary key is {@code primary_key_columns} when the message has it, else the {@code pk.*}
 * fields of the key. Maxwell carries no column types: they are inferred from the values ({@link
 * KafkaValues#inferred}). {@code bootstrap-insert} is an insert; DDL, {@code bootstrap-start} and
 * {@code bootstrap-complete} messages are skipped.
 */
final class MaxwellJsonDecoder implements KafkaMessageDecoder {

  private static final long serialVersionUID = 1L;

  private final ZoneId serverTimeZone;

  MaxwellJsonDecoder(ZoneId serverTimeZone) {
    this.serverTimeZone = requireNonNull(serverTimeZone, "serverTimeZone is null");
  }

  @Override
  public Decoded decode(byte[] key, byte[] value) {
    if (value == null) {
      return new Skipped("a tombstone (no value)");
    }
    Optional<JsonNode> parsed = KafkaJson.parse(value);
    if (parsed.isEmpty() || !parsed.get().isObject()) {
      return new Rejected(KafkaJson.notJson(value, "Maxwell JSON"));
    }
    JsonNode message = parsed.get();
    String type = message.path("type").asText("").toLowerCase(Locale.ROOT);
    DecodedChange.Kind kind;
    switch (type) {
      case "insert", "bootstrap-insert" -> kind = DecodedChange.Kind.INSERT;
      case "update" -> kind = DecodedChange.Kind.UPDATE;
      case "delete" -> kind = DecodedChange.Kind.DELETE;
      case "" -> {
        return new Rejected("a Maxwell JSON message needs a \"type\"; this one has none");
      }
      default -> {
        return new Skipped("a Maxwell " + type + " message carries no rows");
      }
    }
    Optional<String> missing = KafkaJson.missingText(message, "database", "table");
    if (missing.isPresent()) {
      return new Rejected("a Maxwell " + type + " message needs \"" + missing.get() + "\"");
    }
    String name = message.path("database").asText() + "." + message.path("table").asText();
    JsonNode data = message.path("data");
    if (!data.isObject()) {
      return new Rejected(
          "the Maxwell " + type + " message of " + name + " has no \"data\" object");
    }
    List<String> primaryKey = primaryKey(message, key);
    if (primaryKey.isEmpty()) {
      return new Rejected(
          "the Maxwell message of "
              + name
              + " names no primary key: neither \"primary_key_columns\" (Maxwell's"
              + " output_primary_key_columns) nor pk.* fields in the message key");
    }
    List<SourceColumn> columns = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = data.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      SourceColumn column =
          KafkaValues.inferred(
              field.getKey(), field.getValue(), primaryKey.contains(field.getKey()));
      if (column != null) {
        columns.add(column);
      }
    }
    SourceTable source =
        new SourceTable(
            message.path("database").asText(), message.path("table").asText(), columns, primaryKey);
    try {
      Map<String, Object> row = row(source, data);
      CanalJsonDecoder.requireKey(source, row, "the row");
      long millis = message.path("ts").asLong(0) * 1000;
      return new Changes(
          List.of(
              switch (kind) {
                case INSERT ->
                    new DecodedChange(source, kind, Optional.empty(), Optional.of(row), millis);
                case DELETE ->
                    new DecodedChange(source, kind, Optional.of(row), Optional.empty(), millis);
                case UPDATE -> {
                  Map<String, Object> before = new LinkedHashMap<>(row);
                  JsonNode old = message.path("old");
                  for (Iterator<Map.Entry<String, JsonNode>> it = old.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> field = it.next();
                    SourceColumn column =
                        source.columns().stream()
                            .filter(c -> c.name().equals(field.getKey()))
                            .findFirst()
                            .orElseGet(
                                () ->
                                    KafkaValues.inferred(
                                        field.getKey(),
                                        field.getValue(),
                                        primaryKey.contains(field.getKey())));
                    before.put(
                        field.getKey(),
                        column == null
                            ? null
                            : KafkaValues.value(source, column, field.getValue(), serverTimeZone));
                  }
                  CanalJsonDecoder.requireKey(source, before, "the row before the update");
                  yield new DecodedChange(
                      source, kind, Optional.of(before), Optional.of(row), millis);
                }
              }));
    } catch (IllegalArgumentException wrong) {
      return new Rejected(name + ": " + wrong.getMessage());
    }
  }

  private Map<String, Object> row(SourceTable source, JsonNode data) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = data.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      Optional<SourceColumn> column =
          source.columns().stream().filter(c -> c.name().equals(field.getKey())).findFirst();
      row.put(
          field.getKey(),
          column.isEmpty()
              ? null
              : KafkaValues.value(source, column.get(), field.getValue(), serverTimeZone));
    }
    return row;
  }

  private static List<String> primaryKey(JsonNode message, byte[] key) {
    List<String> names = new ArrayList<>();
    message.path("primary_key_columns").forEach(name -> names.add(name.asText()));
    if (!names.isEmpty() || key == null) {
      return names;
    }
    KafkaJson.parse(key)
        .filter(JsonNode::isObject)
        .ifPresent(
            fields ->
                fields
                    .fieldNames()
                    .forEachRemaining(
                        field -> {
                          if (field.startsWith("pk.")) {
                            names.add(field.substring(3));
                          }
                        }));
    return names;
  }
}
