package dev.floe.sql;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.iceberg.FloeCatalog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.TableConfigOptions;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.flink.FlinkCatalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded Flink SQL session in batch mode on one Iceberg catalog, which is the session's
 * current catalog: {@code SELECT * FROM ns.table} reads the table's current snapshot. Statements
 * are checked by {@link SqlReadOnlyCheck} first. Each query runs as a Flink job in a local mini
 * cluster inside this JVM. Not thread-safe: one statement at a time.
 */
public final class SqlSession implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SqlSession.class);

  /** The current database (Iceberg namespace) until {@code USE ns} or {@code --namespace}. */
  public static final String DEFAULT_DATABASE = "default";

  /** {@code SET 'key' = 'value'}: a Flink option for the session's next statements. */
  private static final Pattern SET =
      Pattern.compile("(?is)\\s*SET\\s+'([^']+)'\\s*=\\s*'([^']*)'\\s*");

  private final TableEnvironment environment;
  private final String catalogName;

  private final SqlCluster cluster;

  private SqlSession(TableEnvironment environment, String catalogName, SqlCluster cluster) {
    this.environment = environment;
    this.catalogName = catalogName;
    this.cluster = cluster;
  }

  /** Opens a session on the catalog Floe opened: same name, same properties. */
  public static SqlSession open(FloeCatalog catalog) {
    requireNonNull(catalog, "catalog is null");
    return open(catalog.name(), catalog.properties());
  }

  /**
   * Opens a session on the Iceberg catalog with this name and these properties (as {@code
   * FloeCatalog.properties()} holds them: {@code type}, {@code uri}, {@code warehouse}, ...).
   */
  public static SqlSession open(String catalogName, Map<String, String> catalogProperties) {
    requireNonNull(catalogName, "catalogName is null");
    requireNonNull(catalogProperties, "catalogProperties is null");
    long started = System.nanoTime();
    Configuration configuration = new Configuration();
    configuration.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
    // Timestamps with a time zone print in UTC, whatever the machine's zone.
    configuration.set(TableConfigOptions.LOCAL_TIME_ZONE, "UTC");
    // The local cluster's REST endpoint must not take a fixed port (two sessions at once).
    configuration.set(RestOptions.BIND_PORT, "0");
    int parallelism = Runtime.getRuntime().availableProcessors();
    configuration.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    configuration.set(DeploymentOptions.TARGET, "floe-sql-session");
    SqlCluster cluster = new SqlCluster(configuration, parallelism);
    StreamExecutionEnvironment executionEnvironment =
        new StreamExecutionEnvironment(cluster, configuration, SqlSession.class.getClassLoader());
    TableEnvironment environment =
        StreamTableEnvironment.create(
            executionEnvironment,
            EnvironmentSettings.newInstance()
                .inBatchMode()
                .withConfiguration(configuration)
                .build());
    FlinkCatalog catalog =
        new FlinkCatalog(
            catalogName,
            DEFAULT_DATABASE,
            Namespace.empty(),
            new FloeCatalogLoader(catalogName, catalogProperties),
            Map.of(),
            false,
            -1);
    environment.registerCatalog(catalogName, catalog);
    environment.useCatalog(catalogName);
    LOG.debug("SQL session ready in {} ms", (System.nanoTime() - started) / 1_000_000);
    return new SqlSession(environment, catalogName, cluster);
  }

  /** The Flink catalog name tables resolve in ({@code catalog.ns.table}). */
  public String catalogName() {
    return catalogName;
  }

  /**
   * Runs one statement (without its terminating {@code ;}). A query starts running here; read its
   * rows from the result and close it.
   *
   * @throws FloeException BAD_INPUT when the statement is refused (not read-only), does not parse
   *     or does not validate (unknown table or column); the message is one line
   */
  public SqlResult execute(String statement) {
    requireNonNull(statement, "statement is null");
    SqlReadOnlyCheck.refusal(statement)
        .ifPresent(
            refusal -> {
              throw FloeException.badInput(refusal);
            });
    Matcher set = SET.matcher(statement);
    if (set.matches()) {
      // TableEnvironment.executeSql knows no SET (only Flink's SQL client does).
      environment.getConfig().getConfiguration().setString(set.group(1), set.group(2));
      return SqlResult.success(statement);
    }
    TableResult result;
    long started = System.nanoTime();
    try {
      result = environment.executeSql(statement);
      LOG.debug(
          "statement planned and submitted in {} ms", (System.nanoTime() - started) / 1_000_000);
    } catch (RuntimeException e) {
      LOG.debug("statement failed: {}", statement, e);
      throw FloeException.badInput(SqlErrors.describe(e, statement));
    }
    if (result.getResultKind() == ResultKind.SUCCESS) {
      return SqlResult.success(statement);
    }
    List<SqlColumn> columns = new ArrayList<>();
    for (Column column : result.getResolvedSchema().getColumns()) {
      columns.add(
          new SqlColumn(
              column.getName(),
              column.getDataType().getLogicalType().asSummaryString(),
              column.getDataType().getLogicalType().is(LogicalTypeFamily.NUMERIC)));
    }
    CloseableIterator<Row> rows = result.collect();
    Iterator<List<Object>> values =
        new Iterator<>() {
          @Override
          public boolean hasNext() {
            return rows.hasNext();
          }

          @Override
          public List<Object> next() {
            Row row = rows.next();
            Object[] fields = new Object[row.getArity()];
            for (int i = 0; i < fields.length; i++) {
              fields[i] = row.getField(i);
            }
            return Collections.unmodifiableList(Arrays.asList(fields));
          }
        };
    return new SqlResult(
        statement,
        columns,
        true,
        values,
        rows,
        failure -> {
          LOG.debug("query failed while running: {}", statement, failure);
          return FloeException.sourceUnavailable(
              "The query failed while running: " + SqlErrors.describe(failure, statement), failure);
        });
  }

  @Override
  public void close() {
    try (SqlCluster stopped = cluster) {
      environment.getCatalog(catalogName).ifPresent(catalog -> catalog.close());
    } catch (Exception e) {
      LOG.debug("stopping the local Flink cluster failed", e);
    }
  }
}
