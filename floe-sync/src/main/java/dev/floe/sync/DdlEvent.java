package dev.floe.sync;

import static java.util.Objects.requireNonNull;

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
 * @param after the table after the statement; empty for a dropped table, and for a table renamed
 *     from a name the CDC source does not capture (it does not know its columns)
 * @param renamedFrom for {@link Kind#RENAME}, the table's name before ({@code database.table});
 *     {@code database} and {@code table} are its new name
 */
record DdlEvent(
    String database,
    String table,
    Kind kind,
    String ddl,
    BinlogPosition position,
    Optional<SourceTable> after,
    Optional<String> renamedFrom) {

  private static final ObjectMapper JSON = new ObjectMapper();

  DdlEvent {
    requireNonNull(database, "database is null");
    requireNonNull(table, "table is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(ddl, "ddl is null");
    requireNonNull(position, "position is null");
    requireNonNull(after, "after is null");
    requireNonNull(renamedFrom, "renamedFrom is null");
    if ((kind == Kind.RENAME) != renamedFrom.isPresent()) {
      throw new IllegalArgumentException("a RENAME, and only a RENAME, names the table before");
    }
  }

  /** A DDL event that is not a rename. */
  DdlEvent(
      String database,
      String table,
      Kind kind,
      String ddl,
      BinlogPosition position,
      Optional<SourceTable> after) {
    this(database, table, kind, ddl, position, after, Optional.empty());
  }

  enum Kind {
    CREATE,
    ALTER,
    DROP,
    /**
     * {@code RENAME TABLE a TO b} (one event per pair of a statement that renames several) or
     * {@code ALTER TABLE a RENAME TO b}, which may change columns too ({@link #after}).
     */
    RENAME,
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
    // Debezium names a renamed table by its new name (a statement renaming several, by all of its
    // names, "c,x,tmp"); the statement of the event, one pair, says which.
    Optional<String[]> renamed = renamedTables(ddl, database);
    for (JsonNode change : history.path("tableChanges")) {
      String type = change.path("type").asText("");
      JsonNode definition = change.path("table");
      if (renamed.isPresent() && type.equals("ALTER")) {
        String[] to = renamed.get()[1].split("\\.", 2);
        return Optional.of(
            new DdlEvent(
                to[0],
                to[1],
                Kind.RENAME,
                ddl,
                position,
                Optional.of(sourceTable(to[0], to[1], definition)),
                Optional.of(renamed.get()[0])));
      }
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
    if (renamed.isPresent()) {
      // renamed from a name the CDC source does not capture: it knows no columns
      String[] to = renamed.get()[1].split("\\.", 2);
      return Optional.of(
          new DdlEvent(
              to[0],
              to[1],
              Kind.RENAME,
              ddl,
              position,
              Optional.empty(),
              Optional.of(renamed.get()[0])));
    }
    // No table change: DROP TABLE arrives without one, TRUNCATE and the like too.
    Kind kind =
        ddl.trim().toUpperCase(Locale.ROOT).startsWith("DROP TABLE") ? Kind.DROP : Kind.OTHER;
    return Optional.of(new DdlEvent(database, table, kind, ddl, position, Optional.empty()));
  }

  /**
   * The names before and after ({@code database.table}) of a statement that renames one table:
   * {@code RENAME TABLE a TO b} (Debezium hands on one statement per pair) or {@code ALTER TABLE a
   * ... RENAME [TO|AS] b}. Names without a database are in {@code database}, the statement's
   * default database.
   */
  static Optional<String[]> renamedTables(String ddl, String database) {
    List<String> words = words(ddl);
    if (words.size() >= 5
        && words.get(0).equalsIgnoreCase("RENAME")
        && words.get(1).equalsIgnoreCase("TABLE")
        && words.get(3).equalsIgnoreCase("TO")) {
      return Optional.of(
          new String[] {qualified(words.get(2), database), qualified(words.get(4), database)});
    }
    int table = words.size() > 1 && words.get(0).equalsIgnoreCase("ALTER") ? 1 : -1;
    while (table > 0 && table < words.size() && !words.get(table).equalsIgnoreCase("TABLE")) {
      table++; // ALTER ONLINE TABLE, ALTER IGNORE TABLE
    }
    if (table < 0 || table + 1 >= words.size()) {
      return Optional.empty();
    }
    for (int i = table + 2; i + 1 < words.size(); i++) {
      if (words.get(i).equalsIgnoreCase("RENAME")) {
        String next = words.get(i + 1).toUpperCase(Locale.ROOT);
        if (next.equals("COLUMN") || next.equals("INDEX") || next.equals("KEY")) {
          continue;
        }
        int name = next.equals("TO") || next.equals("AS") ? i + 2 : i + 1;
        if (name < words.size()) {
          String from = qualified(words.get(table + 1), database);
          String to = qualified(words.get(name), database);
          return from.equals(to) ? Optional.empty() : Optional.of(new String[] {from, to});
        }
      }
    }
    return Optional.empty();
  }

  /** A name as {@code database.table}, unquoted. */
  private static String qualified(String name, String database) {
    List<String> parts = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (quote != 0) {
        if (c == quote && i + 1 < name.length() && name.charAt(i + 1) == quote) {
          part.append(c);
          i++;
        } else if (c == quote) {
          quote = 0;
        } else {
          part.append(c);
        }
      } else if (c == '`' || c == '"') {
        quote = c;
      } else if (c == '.') {
        parts.add(part.toString());
        part.setLength(0);
      } else {
        part.append(c);
      }
    }
    parts.add(part.toString());
    return parts.size() == 1 ? database + "." + parts.get(0) : parts.get(0) + "." + parts.get(1);
  }

  /**
   * The statement's words: runs outside quotes split at white space, commas and parentheses (which
   * are dropped); a quoted name stays one word with its quotes, also when a dot joins it to another
   * part ({@code `shop`.`items`}).
   */
  private static List<String> words(String ddl) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < ddl.length(); i++) {
      char c = ddl.charAt(i);
      if (quote != 0) {
        word.append(c);
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '`' || c == '"' || c == '\'') {
        quote = c;
        word.append(c);
      } else if (Character.isWhitespace(c) || c == ',' || c == '(' || c == ')' || c == ';') {
        if (!word.isEmpty()) {
          words.add(word.toString());
          word.setLength(0);
        }
      } else {
        word.append(c);
      }
    }
    if (!word.isEmpty()) {
      words.add(word.toString());
    }
    return words;
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
