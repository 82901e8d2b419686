package dev.floe.sync;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.types.Type;

/**
 * Debezium's JSON messages (Kafka Connect's JsonConverter), with the schema envelope ({@code
 * schemas.enable=true}: {@code {"schema": ..., "payload": ...}}) or without it:
 *
 * <pre>
 * value {"before": {...} | null, "after": {...} | null, "op": "c|r|u|d", "ts_ms": ...,
 *        "source": {"db": "shop", "table": "orders", "ts_ms": 1700000000000, ...}}
 * key   {"id": 1}   (the primary key; or {"schema": ..., "payload": {"id": 1}})
 * </pre>
 *
 * The primary key is the key's fields. With the envelope each column's type is its Connect type and
 * Debezium's semantic name ({@code io.debezium.time.MicroTimestamp}, {@code
 * org.apache.kafka.connect.data.Decimal} with its scale...), mapped to the MySQL type Debezium read
 * it from, so the Iceberg types are the MySQL sync's; without it types are inferred from the values
 * ({@link KafkaValues#inferred}). A tombstone (null value) is skipped; so are messages of no table
 * (schema changes, heartbeats, transaction markers).
 */
final class DebeziumJsonDecoder implements KafkaMessageDecoder {

  private static final long serialVersionUID = 1L;
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  @Override
  public Decoded decode(byte[] key, byte[] value) {
    if (value == null) {
      return new Skipped("a tombstone (no value)");
    }
    Optional<JsonNode> parsed = KafkaJson.parse(value);
    if (parsed.isEmpty() || !parsed.get().isObject()) {
      return new Rejected(KafkaJson.notJson(value, "Debezium JSON"));
    }
    JsonNode message = parsed.get();
    boolean envelope = message.has("schema") && message.has("payload");
    JsonNode payload = envelope ? message.get("payload") : message;
    if (!payload.isObject() || !payload.has("op")) {
      return payload.has("ddl") || payload.has("databaseName") || payload.has("status")
          ? new Skipped("a Debezium message with no row change (schema change or transaction)")
          : new Rejected(
              "the value is not a Debezium change event (no \"op\"): "
                  + KafkaValues.abbreviated(message.toString()));
    }
    String op = payload.path("op").asText("");
    DecodedChange.Kind kind;
    switch (op) {
      case "c", "r" -> kind = DecodedChange.Kind.INSERT;
      case "u" -> kind = DecodedChange.Kind.UPDATE;
      case "d" -> kind = DecodedChange.Kind.DELETE;
      default -> {
        return new Skipped("a Debezium \"" + op + "\" event carries no row change");
      }
    }
    JsonNode source = payload.path("source");
    Optional<String> missing = KafkaJson.missingText(source, "db", "table");
    if (missing.isPresent()) {
      return new Rejected(
          "the Debezium event has no \"source." + missing.get() + "\": its table is unknown");
    }
    String name = source.get("db").asText() + "." + source.get("table").asText();
    List<String> primaryKey = primaryKey(key);
    if (primaryKey.isEmpty()) {
      return new Rejected(
          "the Debezium event of "
              + name
              + " has no key (the primary key): a table without a primary key cannot be"
              + " upserted");
    }
    Map<String, JsonNode> fieldSchemas = envelope ? rowSchema(message.get("schema")) : Map.of();
    if (envelope && fieldSchemas.isEmpty()) {
      return new Rejected(
          "the Debezium event of " + name + " has a schema without the \"before\"/\"after\" row");
    }
    JsonNode before = payload.path("before");
    JsonNode after = payload.path("after");
    JsonNode described = after.isObject() ? after : before;
    if (!described.isObject()) {
      return new Rejected("the Debezium \"" + op + "\" event of " + name + " has no row");
    }
    List<SourceColumn> columns = new ArrayList<>();
    try {
      for (Iterator<String> it = described.fieldNames(); it.hasNext(); ) {
        String column = it.next();
        SourceColumn found =
            envelope
                ? column(column, fieldSchemas.get(column), primaryKey.contains(column), name)
                : KafkaValues.inferred(column, described.get(column), primaryKey.contains(column));
        if (found != null) {
          columns.add(found);
        }
      }
      SourceTable table =
          new SourceTable(
              source.get("db").asText(), source.get("table").asText(), columns, primaryKey);
      long millis = source.path("ts_ms").asLong(payload.path("ts_ms").asLong(0));
      Optional<Map<String, Object>> beforeRow =
          kind == DecodedChange.Kind.INSERT
              ? Optional.empty()
              : Optional.of(row(table, before, fieldSchemas, envelope, name + " (before)"));
      Optional<Map<String, Object>> afterRow =
          kind == DecodedChange.Kind.DELETE
              ? Optional.empty()
              : Optional.of(row(table, after, fieldSchemas, envelope, name));
      return new Changes(List.of(new DecodedChange(table, kind, beforeRow, afterRow, millis)));
    } catch (IllegalArgumentException wrong) {
      return new Rejected(wrong.getMessage());
    }
  }

  /** The key's field names: {@code {"id": 1}}, or its payload's with the envelope. */
  private static List<String> primaryKey(byte[] key) {
    List<String> names = new ArrayList<>();
    if (key == null) {
      return names;
    }
    KafkaJson.parse(key)
        .map(node -> node.has("schema") && node.has("payload") ? node.get("payload") : node)
        .filter(JsonNode::isObject)
        .ifPresent(fields -> fields.fieldNames().forEachRemaining(names::add));
    return names;
  }

  /** The field schemas of the row struct ({@code after}, else {@code before}), by name. */
  private static Map<String, JsonNode> rowSchema(JsonNode schema) {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    for (String part : List.of("after", "before")) {
      for (JsonNode field : schema.path("fields")) {
        if (part.equals(field.path("field").asText()) && field.path("fields").isArray()) {
          for (JsonNode column : field.get("fields")) {
            fields.put(column.path("field").asText(), column);
          }
          return fields;
        }
      }
    }
    return fields;
  }

  /** The MySQL column Debezium read a field from, by its Connect type and semantic name. */
  private static SourceColumn column(String name, JsonNode schema, boolean key, String table) {
    if (schema == null) {
      throw new IllegalArgumentException(
          table + ": column " + name + " has a value but no schema in the event");
    }
    String type = schema.path("type").asText("");
    String semantic = schema.path("name").asText("");
    JsonNode parameters = schema.path("parameters");
    String mysqlType =
        switch (semantic) {
          case "io.debezium.time.Date" -> "date";
          case "io.debezium.time.Time" -> "time(3)";
          case "io.debezium.time.MicroTime", "io.debezium.time.NanoTime" -> "time(6)";
          case "io.debezium.time.Timestamp" -> "datetime(3)";
          case "io.debezium.time.MicroTimestamp", "io.debezium.time.NanoTimestamp" -> "datetime(6)";
          case "io.debezium.time.ZonedTimestamp" -> "timestamp(6)";
          case "io.debezium.time.Year" -> "year";
          case "org.apache.kafka.connect.data.Decimal" ->
              "decimal("
                  + parameters.path("connect.decimal.precision").asInt(38)
                  + ","
                  + parameters.path("scale").asInt(0)
                  + ")";
          case "io.debezium.data.Bits" -> "bit(" + parameters.path("length").asInt(8) + ")";
          case "io.debezium.data.Json" -> "json";
          case "io.debezium.data.Enum" -> "enum";
          case "io.debezium.data.EnumSet" -> "set";
          default ->
              switch (type) {
                case "boolean" -> "bit(1)";
                case "int8" -> "tinyint";
                case "int16" -> "smallint";
                case "int32" -> "int";
                case "int64" -> "bigint";
                case "float", "float32" -> "float";
                case "double", "float64" -> "double";
                case "string" -> "text";
                case "bytes" -> "blob";
                default ->
                    throw new IllegalArgumentException(
                        table
                            + ": column "
                            + name
                            + " has the Debezium type "
                            + type
                            + (semantic.isEmpty() ? "" : " (" + semantic + ")")
                            + ", which Floe cannot map to a MySQL type");
              };
        };
    return KafkaValues.column(name, mysqlType, !key && schema.path("optional").asBoolean(true));
  }

  private static Map<String, Object> row(
      SourceTable table,
      JsonNode values,
      Map<String, JsonNode> schemas,
      boolean envelope,
      String where) {
    if (!values.isObject()) {
      throw new IllegalArgumentException(where + ": the event has no row");
    }
    Map<String, Object> row = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = values.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      Optional<SourceColumn> column =
          table.columns().stream().filter(c -> c.name().equals(field.getKey())).findFirst();
      Object value = null;
      if (column.isPresent() && !field.getValue().isNull()) {
        try {
          value =
              envelope
                  ? connectValue(table, column.get(), schemas.get(field.getKey()), field.getValue())
                  : KafkaValues.value(table, column.get(), field.getValue(), ZoneOffset.UTC);
        } catch (IllegalArgumentException | ArithmeticException wrong) {
          throw new IllegalArgumentException(
              where
                  + ": column "
                  + field.getKey()
                  + " ("
                  + column.get().columnType()
                  + ") cannot hold the value "
                  + KafkaValues.abbreviated(field.getValue().toString())
                  + (wrong.getMessage() == null ? "" : ": " + wrong.getMessage()),
              wrong);
        }
      }
      row.put(field.getKey(), value);
    }
    CanalJsonDecoder.requireKey(table, row, where);
    return row;
  }

  /** A JsonConverter value of a Connect field, as the MySQL sync's ValueConverter reads it. */
  private static Object connectValue(
      SourceTable table, SourceColumn column, JsonNode schema, JsonNode value) {
    String semantic = schema.path("name").asText("");
    Type type = KafkaValues.icebergType(table, column);
    return switch (semantic) {
      case "io.debezium.time.Date" -> LocalDate.ofEpochDay(value.asLong());
      case "io.debezium.time.Time" -> time(value.asLong() * 1000);
      case "io.debezium.time.MicroTime" -> time(value.asLong());
      case "io.debezium.time.NanoTime" -> time(value.asLong() / 1000);
      case "io.debezium.time.Timestamp" -> local(value.asLong() * 1000);
      case "io.debezium.time.MicroTimestamp" -> local(value.asLong());
      case "io.debezium.time.NanoTimestamp" -> local(value.asLong() / 1000);
      case "io.debezium.time.ZonedTimestamp" ->
          OffsetDateTime.parse(value.asText()).withOffsetSameInstant(ZoneOffset.UTC);
      case "org.apache.kafka.connect.data.Decimal" ->
          value.isTextual()
              ? new BigDecimal(
                  new BigInteger(Base64.getDecoder().decode(value.asText())),
                  schema.path("parameters").path("scale").asInt(0))
              : value.decimalValue().setScale(column.scale());
      case "io.debezium.data.Bits" -> {
        // Debezium hands BIT(n) over little-endian; store the big-endian bytes MySQL shows.
        byte[] bytes = Base64.getDecoder().decode(value.asText());
        for (int i = 0, j = bytes.length - 1; i < j; i++, j--) {
          byte swap = bytes[i];
          bytes[i] = bytes[j];
          bytes[j] = swap;
        }
        yield ByteBuffer.wrap(bytes);
      }
      default ->
          switch (type.typeId()) {
            case BINARY -> ByteBuffer.wrap(Base64.getDecoder().decode(value.asText()));
            case BOOLEAN -> value.asBoolean();
            case INTEGER -> Math.toIntExact(value.longValue());
            case LONG -> value.longValue();
            case FLOAT -> value.floatValue();
            case DOUBLE -> value.doubleValue();
            case STRING -> value.isTextual() ? value.asText() : value.toString();
            default -> KafkaValues.value(table, column, value, ZoneOffset.UTC);
          };
    };
  }

  private static LocalTime time(long micros) {
    if (micros < 0 || micros >= MICROS_PER_DAY) {
      throw new IllegalArgumentException(
          ValueConverter.timeText(micros)
              + " is outside 00:00:00-23:59:59, which an Iceberg time cannot hold");
    }
    return LocalTime.ofNanoOfDay(micros * 1000);
  }

  /** Debezium gives DATETIME as the epoch count of its wall-clock value read as UTC. */
  private static LocalDateTime local(long micros) {
    return LocalDateTime.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000,
        ZoneOffset.UTC);
  }
}
