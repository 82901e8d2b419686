package dev.floe.sql;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.apache.flink.types.Row;

/**
 * JSON Lines: one object per row on its own line, keys are the column names in column order. SQL
 * NULL is {@code null}; integers, decimals and finite floating-point numbers are JSON numbers
 * (decimals exactly, never in exponent form), booleans are booleans, arrays are arrays, maps and
 * rows are objects (rows without field names are arrays); everything else is a string with the same
 * text as in the other formats.
 */
final class JsonResultPrinter implements SqlResultPrinter {

  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build();

  private final PrintWriter out;
  private List<SqlColumn> columns = List.of();

  JsonResultPrinter(PrintWriter out) {
    this.out = requireNonNull(out, "out is null");
  }

  @Override
  public void begin(List<SqlColumn> columns) {
    this.columns = List.copyOf(columns);
  }

  @Override
  public void row(List<Object> values) {
    StringWriter line = new StringWriter();
    try (JsonGenerator json = FACTORY.createGenerator(line)) {
      json.writeStartObject();
      for (int i = 0; i < values.size(); i++) {
        json.writeFieldName(columns.get(i).name());
        write(json, values.get(i));
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.print(line.append('\n'));
  }

  @Override
  public void end(long rows, boolean truncated) {
    out.flush();
  }

  private static void write(JsonGenerator json, Object value) throws IOException {
    if (value == null) {
      json.writeNull();
    } else if (value instanceof Boolean bool) {
      json.writeBoolean(bool);
    } else if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte) {
      json.writeNumber(((Number) value).longValue());
    } else if (value instanceof BigDecimal decimal) {
      json.writeNumber(decimal);
    } else if (value instanceof BigInteger integer) {
      json.writeNumber(integer);
    } else if ((value instanceof Double || value instanceof Float)
        && Double.isFinite(((Number) value).doubleValue())) {
      json.writeNumber(value.toString());
    } else if (value instanceof Object[] array) {
      json.writeStartArray();
      for (Object element : array) {
        write(json, element);
      }
      json.writeEndArray();
    } else if (value instanceof Map<?, ?> map) {
      json.writeStartObject();
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        json.writeFieldName(entry.getKey() == null ? "null" : SqlValues.text(entry.getKey()));
        write(json, entry.getValue());
      }
      json.writeEndObject();
    } else if (value instanceof Row row) {
      writeRow(json, row);
    } else {
      json.writeString(SqlValues.text(value));
    }
  }

  private static void writeRow(JsonGenerator json, Row row) throws IOException {
    java.util.Set<String> names = row.getFieldNames(true);
    if (names == null) {
      json.writeStartArray();
      for (int i = 0; i < row.getArity(); i++) {
        write(json, row.getField(i));
      }
      json.writeEndArray();
      return;
    }
    json.writeStartObject();
    for (String name : names) {
      json.writeFieldName(name);
      write(json, row.getField(name));
    }
    json.writeEndObject();
  }
}
