package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plain JSON event messages ({@code --format json}): each message value is one JSON object, one row
 * of the one target table ({@code --target NS.TABLE}), appended, or upserted by {@code --key
 * COL[,COL]}.
 *
 * <p>Values keep what JSON says: an integral number is a {@code Long}, any other number an exact
 * {@code BigDecimal}, a boolean a {@code Boolean}, text a {@code String}, an object or array its
 * JSON text. The columns' types are inferred the same way ({@link KafkaValues#inferred}); a table
 * that exists keeps its own types, and {@link KafkaTables} reads each value as its column's type
 * (text as a timestamp, a date, a decimal...). A field whose values are all null so far is left out
 * until a value shows its type.
 */
final class PlainJsonDecoder implements KafkaMessageDecoder {

  private static final long serialVersionUID = 1L;

  private final String namespace;
  private final String table;
  private final List<String> key;

  /**
   * @param target the Iceberg table, {@code NS.TABLE}
   * @param key the columns rows are upserted by; empty: appended
   */
  PlainJsonDecoder(String target, List<String> key) {
    int dot = requireNonNull(target, "target is null").lastIndexOf('.');
    if (dot <= 0 || dot == target.length() - 1) {
      throw new IllegalArgumentException("target " + target + " is not NS.TABLE");
    }
    this.namespace = target.substring(0, dot);
    this.table = target.substring(dot + 1);
    this.key = List.copyOf(key);
  }

  @Override
  public Decoded decode(byte[] messageKey, byte[] value) {
    if (value == null) {
      return new Skipped("a tombstone (no value)");
    }
    Optional<JsonNode> parsed = KafkaJson.parse(value);
    if (parsed.isEmpty() || !parsed.get().isObject()) {
      return new Rejected(KafkaJson.notJson(value, "JSON object"));
    }
    JsonNode message = parsed.get();
    for (String column : key) {
      JsonNode found = message.get(column);
      if (found == null || found.isNull()) {
        return new Rejected(
            "the message has no value for its key column "
                + column
                + " (--key "
                + String.join(",", key)
                + ")");
      }
      if (found.isContainerNode()) {
        return new Rejected(
            "the message's key column "
                + column
                + " holds a JSON "
                + found.getNodeType().name().toLowerCase(java.util.Locale.ROOT)
                + ", not a value");
      }
    }
    List<SourceColumn> columns = new ArrayList<>();
    Map<String, Object> row = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = message.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      JsonNode node = field.getValue();
      SourceColumn column =
          KafkaValues.inferred(field.getKey(), node, key.contains(field.getKey()));
      if (column == null) {
        row.put(field.getKey(), null);
        continue;
      }
      columns.add(column);
      row.put(field.getKey(), value(node));
    }
    SourceTable source = new SourceTable(namespace, table, columns, key);
    return new Changes(
        List.of(
            new DecodedChange(
                source, DecodedChange.Kind.INSERT, Optional.empty(), Optional.of(row), 0)));
  }

  private static Object value(JsonNode node) {
    if (node.isIntegralNumber()) {
      return node.canConvertToLong() ? (Object) node.longValue() : node.decimalValue();
    }
    if (node.isNumber()) {
      return node.decimalValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    if (node.isContainerNode()) {
      return node.toString();
    }
    return node.asText();
  }
}
