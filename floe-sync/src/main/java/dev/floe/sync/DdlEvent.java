package dev.floe.sync;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.connect.data.Struct;

/**
 * A DDL statement from the binlog, as the CDC source reports it: the statement, its position, and
 * the table as MySQL defines it after the statement (Debezium's table change), if it still exists.
 *
 * @param database the table's database
 * @param table the table's name
 * @param kind what happened to the table
 * @param ddl the statement as MySQL logged it
 * @param position the statement's binlog position
 * @param after the table after the statement; empty for a dropped table
 */
record DdlEvent(
    String database,
    String table,
    Kind kind,
    String ddl,
    BinlogPosition position,
    Optional<SourceTable> after) {

  private static final ObjectMapper JSON = new ObjectMapper();

  enum Kind {
    CREATE,
    ALTER,
    DROP,
    /** A statement on the table that changes no columns (TRUNCATE, a comment, an index...). */
    OTHER
  }

  String qualifiedName() {
    return database + "." + table;
  }

  /** Reads a schema-change record's value, or empty when the record is not about one table. */
  static Optional<DdlEvent> of(Struct value) {
    if (value.schema().field("historyRecord") == null || value.getString("historyRecord") == null) {
      return Optional.empty();
    }
    Struct source = value.getStruct("source");
    String database = source.getString("db");
    String table = source.schema().field("table") == null ? null : source.getString("table");
    if (database == null || table == null || table.isEmpty()) {
      return Optional.empty(); // CREATE DATABASE and other statements about no table
    }
    BinlogPosition position = new BinlogPosition(source.getString("file"), source.getInt64("pos"));
    JsonNode history;
    try {
      history = JSON.readTree(value.getString("historyRecord"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read a DDL event at " + position.text(), e);
    }
    String ddl = history.path("ddl").asText("");
    for (JsonNode change : history.path("tableChanges")) {
      String type = change.path("type").asText("");
      JsonNode definition = change.path("table");
      SourceTable after = sourceTable(database, table, definition);
      Kind kind =
          switch (type) {
            case "CREATE" -> Kind.CREATE;
            case "ALTER" -> Kind.ALTER;
            case "DROP" -> Kind.DROP;
            default -> Kind.OTHER;
          };
      return Optional.of(
          new DdlEvent(
              database,
              table,
              kind,
              ddl,
              position,
              kind == Kind.DROP ? Optional.empty() : Optional.of(after)));
    }
    // No table change: DROP TABLE arrives without one, TRUNCATE and the like too.
    Kind kind =
        ddl.trim().toUpperCase(Locale.ROOT).startsWith("DROP TABLE") ? Kind.DROP : Kind.OTHER;
    return Optional.of(new DdlEvent(database, table, kind, ddl, position, Optional.empty()));
  }

  /** Debezium's column description as information_schema would give it. */
  private static SourceTable sourceTable(String database, String table, JsonNode definition) {
    List<SourceColumn> columns = new ArrayList<>();
    for (JsonNode column : definition.path("columns")) {
      String typeName = column.path("typeName").asText("").toLowerCase(Locale.ROOT);
      String dataType = typeName.replace(" unsigned", "").replace(" zerofill", "").trim();
      String expression = column.path("typeExpression").asText(typeName).toLowerCase(Locale.ROOT);
      int length = column.path("length").asInt(0);
      if (length <= 0) {
        // MySQL's defaults for a type written without a length
        length =
            switch (dataType) {
              case "decimal", "numeric", "dec", "fixed" -> 10;
              case "bit" -> 1;
              default -> 0;
            };
      }
      int scale = column.path("scale").asInt(0);
      columns.add(
          new SourceColumn(
              column.path("name").asText(),
              dataType,
              expression,
              column.path("optional").asBoolean(true),
              length,
              dataType.equals("datetime") || dataType.equals("timestamp") || dataType.equals("time")
                  ? length
                  : scale));
    }
    List<String> key = new ArrayList<>();
    for (JsonNode name : definition.path("primaryKeyColumnNames")) {
      key.add(name.asText());
    }
    return new SourceTable(database, table, columns, key);
  }
}
