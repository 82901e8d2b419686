package dev.floe.sync;

import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.cdc.connectors.mysql.source.MySqlSource;
import org.apache.flink.cdc.connectors.mysql.table.StartupOptions;
import org.apache.flink.cdc.debezium.DebeziumDeserializationSchema;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.util.Collector;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the Flink CDC MySQL source emits for RENAME TABLE (docs/schema-changes.md, "RENAME TABLE"),
 * with Floe's settings (schema changes included, the selection's pattern as the table list): a
 * canary for an upgrade of Flink CDC or Debezium that changes it.
 */
@ExtendWith(MariaDbExtension.class)
class RenameTableCdcProbeITCase {
  static final ConcurrentLinkedQueue<String> SEEN = new ConcurrentLinkedQueue<>();

  static final class Probe implements DebeziumDeserializationSchema<String> {
    @Override
    public void deserialize(SourceRecord record, Collector<String> out) {
      if (!(record.value() instanceof Struct v)) {
        return;
      }
      Struct source = v.getStruct("source");
      if (v.schema().field("op") == null) {
        StringBuilder changes = new StringBuilder();
        try {
          var history =
              new com.fasterxml.jackson.databind.ObjectMapper()
                  .readTree(v.getString("historyRecord"));
          for (var change : history.path("tableChanges")) {
            changes
                .append(change.path("type").asText())
                .append(' ')
                .append(change.path("id").asText().replace("\"", ""))
                .append(
                    change.has("previousId")
                        ? " from " + change.path("previousId").asText().replace("\"", "")
                        : "")
                .append(';');
          }
          SEEN.add(
              "DDL "
                  // several tables, in no fixed order
                  + String.join(
                      ",", new java.util.TreeSet<>(List.of(source.getString("table").split(","))))
                  + " `"
                  + history.path("ddl").asText().replace("`", "")
                  + "` ["
                  + changes
                  + "]");
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      } else {
        SEEN.add(
            "ROW " + source.getString("table") + " " + v.getString("op") + " " + v.get("after"));
      }
    }

    @Override
    public TypeInformation<String> getProducedType() {
      return Types.STRING;
    }
  }

  @Test
  void probe(MariaDbServer server) throws Exception {
    String db = server.createDatabase("ren");
    String t = "`" + db + "`.";
    List<String> after =
        seen(
            server,
            db,
            // the pattern: tables of the database other than outside_*
            db + "\\.(?!outside_).*",
            statements(t));
    org.assertj.core.api.Assertions.assertThat(after)
        .containsExactly(
            "ROW a c Struct{id=1,v=1}",
            // the new name in source.table, the old one only in previousId
            "DDL b `RENAME TABLE db.a TO db.b` [ALTER db.b from db.a;]",
            "ROW b c Struct{id=2,v=2}",
            // ALTER TABLE ... RENAME TO: no previousId, only the statement names the old name
            "DDL b2 `ALTER TABLE db.b RENAME TO db.b2` [ALTER db.b2;]",
            "ROW b2 c Struct{id=3,v=3}",
            // renamed out of the captured tables: nothing at all, no rows after it
            // renamed in from a table the source does not capture: no definition
            "DDL x `RENAME TABLE db.outside_x TO db.x` []",
            // ... nor does it decode the table's rows after it ("ROW x c Struct{id=6,v=6}")
            // one event per pair, all at one position, source.table naming every table
            "DDL c,tmp,x `RENAME TABLE db.c TO db.tmp` []",
            "DDL c,tmp,x `RENAME TABLE db.x TO db.c` []",
            "DDL c,tmp,x `RENAME TABLE db.tmp TO db.x` [ALTER db.x from db.tmp;]",
            "ROW c c Struct{id=7,v=7}",
            "ROW x c Struct{id=8,v=8}",
            "DDL last `CREATE TABLE db.last (id INT PRIMARY KEY)` [CREATE db.last;]",
            "ROW last c Struct{id=9}");
  }

  /** Renames within, out of and into the pattern, and a swap, each with rows after it. */
  private static List<String> statements(String t) {
    return List.of(
        "INSERT INTO " + t + "a VALUES (1, 1)",
        "RENAME TABLE " + t + "a TO " + t + "b",
        "INSERT INTO " + t + "b VALUES (2, 2)",
        "ALTER TABLE " + t + "b RENAME TO " + t + "b2",
        "INSERT INTO " + t + "b2 VALUES (3, 3)",
        // out of the pattern
        "RENAME TABLE " + t + "b2 TO " + t + "outside_b",
        "INSERT INTO " + t + "outside_b VALUES (4, 4)",
        // into the pattern
        "INSERT INTO " + t + "outside_x VALUES (5, 5)",
        "RENAME TABLE " + t + "outside_x TO " + t + "x",
        "INSERT INTO " + t + "x VALUES (6, 6)",
        "UPDATE " + t + "outside_b SET v = 0",
        // swap in one statement
        "RENAME TABLE "
            + t
            + "c TO "
            + t
            + "tmp, "
            + t
            + "x TO "
            + t
            + "c, "
            + t
            + "tmp TO "
            + t
            + "x",
        "INSERT INTO " + t + "c VALUES (7, 7)",
        "INSERT INTO " + t + "x VALUES (8, 8)");
  }

  /**
   * The same with Floe's table list ({@link CaptureList}): the whole database, so a rename out of
   * the pattern arrives with its definition, and one into it too, followed by the table's rows.
   */
  @Test
  void probeWithTheDatabaseCaptured(MariaDbServer server) throws Exception {
    String db = server.createDatabase("ren");
    String captured =
        new SyncTargets(List.of(db + "\\.(?!outside_).*"), List.of(), "", List.of()).captureList();
    org.assertj.core.api.Assertions.assertThat(captured).isEqualTo(db + "\\..*");
    List<String> after = seen(server, db, captured, statements("`" + db + "`."));
    org.assertj.core.api.Assertions.assertThat(after)
        .containsExactly(
            "ROW a c Struct{id=1,v=1}",
            "DDL b `RENAME TABLE db.a TO db.b` [ALTER db.b from db.a;]",
            "ROW b c Struct{id=2,v=2}",
            "DDL b2 `ALTER TABLE db.b RENAME TO db.b2` [ALTER db.b2;]",
            "ROW b2 c Struct{id=3,v=3}",
            // renamed out of the pattern: the rename and the rows after it arrive
            "DDL outside_b `RENAME TABLE db.b2 TO db.outside_b` [ALTER db.outside_b from db.b2;]",
            "ROW outside_b c Struct{id=4,v=4}",
            "ROW outside_x c Struct{id=5,v=5}",
            // renamed into it: with the definition, and the table's rows are decoded
            "DDL x `RENAME TABLE db.outside_x TO db.x` [ALTER db.x from db.outside_x;]",
            "ROW x c Struct{id=6,v=6}",
            "ROW outside_b u Struct{id=1,v=0}",
            "ROW outside_b u Struct{id=2,v=0}",
            "ROW outside_b u Struct{id=3,v=0}",
            "ROW outside_b u Struct{id=4,v=0}",
            // the swap: the pair to the name the statement renames away again has no change
            "DDL c,tmp,x `RENAME TABLE db.c TO db.tmp` []",
            "DDL c,tmp,x `RENAME TABLE db.x TO db.c` [ALTER db.c from db.x;]",
            "DDL c,tmp,x `RENAME TABLE db.tmp TO db.x` [ALTER db.x from db.tmp;]",
            "ROW c c Struct{id=7,v=7}",
            "ROW x c Struct{id=8,v=8}",
            "DDL last `CREATE TABLE db.last (id INT PRIMARY KEY)` [CREATE db.last;]",
            "ROW last c Struct{id=9}");
  }

  /**
   * What the source emits for the statements, from the first after a marker, with the database
   * named {@code db}; the statements end with a created table {@code last} and its row.
   */
  private static List<String> seen(
      MariaDbServer server, String db, String tableList, List<String> statements) throws Exception {
    SEEN.clear();
    server.execute(
        "CREATE TABLE `" + db + "`.a (id INT PRIMARY KEY, v INT)",
        "CREATE TABLE `" + db + "`.c (id INT PRIMARY KEY, v INT)",
        "CREATE TABLE `" + db + "`.outside_x (id INT PRIMARY KEY, v INT)");
    String head;
    try (var connection = server.rootConnection();
        var statement = connection.createStatement();
        var rows = statement.executeQuery("SHOW MASTER STATUS")) {
      rows.next();
      head = rows.getString(1) + ":" + rows.getLong(2);
    }
    String[] at = head.split(":");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.enableCheckpointing(1000);
    MySqlSource<String> source =
        MySqlSource.<String>builder()
            .hostname(server.host())
            .port(server.port())
            .username("root")
            .password("")
            .databaseList(SyncJob.USER_DATABASES)
            .tableList(tableList)
            .serverId("7001")
            .startupOptions(StartupOptions.specificOffset(at[0], Long.parseLong(at[1])))
            .includeSchemaChanges(true)
            .deserializer(new Probe())
            .build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "probe")
        .addSink(new DiscardingSink<>());
    JobClient job = env.executeAsync("probe");
    String t = "`" + db + "`.";
    try {
      java.util.concurrent.atomic.AtomicInteger marker =
          new java.util.concurrent.atomic.AtomicInteger(100);
      Poll.until(
          "the source reads",
          Duration.ofSeconds(120),
          Duration.ofMillis(500),
          () -> {
            server.execute("INSERT INTO " + t + "c VALUES (" + marker.incrementAndGet() + ", 0)");
            return SEEN.stream().anyMatch(line -> line.startsWith("ROW c"));
          });
      SEEN.add("---- DDL starts");
      server.execute(statements.toArray(String[]::new));
      server.execute(
          "CREATE TABLE " + t + "last (id INT PRIMARY KEY)",
          "INSERT INTO " + t + "last VALUES (9)");
      Poll.until(
          "the last row",
          Duration.ofSeconds(120),
          Duration.ofMillis(200),
          () -> SEEN.stream().anyMatch(line -> line.startsWith("ROW last")));
    } finally {
      job.cancel().get();
    }
    List<String> lines = List.copyOf(SEEN);
    return lines.subList(lines.indexOf("---- DDL starts") + 1, lines.size()).stream()
        .filter(line -> !line.startsWith("ROW c c Struct{id=1"))
        .map(line -> line.replace(db, "db"))
        .toList();
  }
}
