package dev.floe.testing.spark;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark SQL session in local mode that runs the statements it reads from standard input, one a
 * line, and answers each on standard output, so a test in another JVM drives a real Spark without
 * Spark's jars on its classpath.
 *
 * <p>Arguments: {@code KEY=VALUE...}, Spark configuration (e.g. {@code spark.master=local[2]}, the
 * {@code spark.sql.catalog.NAME.*} keys of an Iceberg catalog). Prints {@code READY} once the
 * session is up. For each statement it prints one {@code ROW} line per result row (the values
 * tab-separated, see {@link #text(Object)}), then {@code OK N} with the row count, or one {@code
 * ERROR} line with the failure's class and messages (causes included). Anything else Spark prints
 * goes to standard error. The session ends at the end of the input, so it also ends when the
 * driving JVM dies.
 */
public final class SparkSqlMain {

  /** What the session prints once it takes statements. */
  public static final String READY = "READY";

  /** A null value in a row line. */
  public static final String NULL = "\\N";

  private SparkSqlMain() {}

  public static void main(String[] arguments) throws Exception {
    PrintStream answers =
        new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
    System.setOut(System.err); // only the answers go to standard output
    SparkSession.Builder builder = SparkSession.builder().appName("floe-spark-interop");
    for (String argument : arguments) {
      int equals = argument.indexOf('=');
      if (equals <= 0) {
        System.err.println("not KEY=VALUE: " + argument);
        System.exit(2);
      }
      builder.config(argument.substring(0, equals), argument.substring(equals + 1));
    }
    SparkSession spark = builder.getOrCreate();
    answers.println(READY);
    BufferedReader statements =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String statement = statements.readLine();
        statement != null;
        statement = statements.readLine()) {
      if (statement.isBlank()) {
        continue;
      }
      try {
        List<Row> rows = spark.sql(statement).collectAsList();
        for (Row row : rows) {
          StringBuilder line = new StringBuilder("ROW");
          for (int i = 0; i < row.length(); i++) {
            line.append('\t').append(text(row.get(i)));
          }
          answers.println(line);
        }
        answers.println("OK " + rows.size());
      } catch (Throwable failure) {
        answers.println("ERROR " + describe(failure));
      }
    }
    spark.stop();
  }

  /**
   * A value as text: {@link #NULL} for null, a decimal without exponent, bytes as hex, anything
   * else (numbers, strings, {@code java.time} dates and times with {@code
   * spark.sql.datetime.java8API.enabled}) by {@code toString()}; tab, newline and backslash
   * escaped.
   */
  static String text(Object value) {
    if (value == null) {
      return NULL;
    }
    String text;
    if (value instanceof BigDecimal decimal) {
      text = decimal.toPlainString();
    } else if (value instanceof byte[] bytes) {
      text = HexFormat.of().formatHex(bytes);
    } else {
      text = value.toString();
    }
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
  }

  /** The failure's class and its messages and those of its causes, on one line. */
  private static String describe(Throwable failure) {
    StringBuilder text = new StringBuilder();
    Throwable cause = failure;
    for (int depth = 0; cause != null && depth < 8; depth++, cause = cause.getCause()) {
      if (depth > 0) {
        text.append(" | caused by ");
      }
      text.append(cause.getClass().getName()).append(": ").append(cause.getMessage());
      if (cause.getCause() == cause) {
        break;
      }
    }
    return text.toString().replace('\n', ' ').replace('\r', ' ');
  }
}
