package dev.floe.testing.restcatalog;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Iceberg's REST catalog server for tests, built as Iceberg's own {@code RESTCatalogServer} builds
 * it: {@link RESTCatalogServlet} over a {@link RESTCatalogAdapter} over a {@link JdbcCatalog}. It
 * listens on 127.0.0.1 only (Iceberg's server binds every interface) and on a port the system picks
 * when given 0, which it prints once it serves, so the caller never races another process for it.
 *
 * <p>Arguments: {@code PORT CATALOG_DB WAREHOUSE [KEY=VALUE...]}: the port (0 for any free one),
 * the SQLite file of the backing catalog, the warehouse location, and further catalog properties.
 * Prints {@code REST catalog serving on http://127.0.0.1:PORT} when ready; runs until killed.
 */
public final class RestCatalogServerMain {

  /** What the server prints when it serves, followed by its URI. */
  public static final String READY = "REST catalog serving on ";

  private RestCatalogServerMain() {}

  public static void main(String[] arguments) throws Exception {
    if (arguments.length < 3) {
      System.err.println("usage: RestCatalogServerMain PORT CATALOG_DB WAREHOUSE [KEY=VALUE...]");
      System.exit(2);
    }
    int port = Integer.parseInt(arguments[0]);
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
    properties.put(CatalogProperties.URI, "jdbc:sqlite:" + arguments[1]);
    properties.put("jdbc.schema-version", "V1");
    // one JVM, but a pool of connections that commit concurrently: wait rather than fail
    properties.put("jdbc.journal_mode", "WAL");
    properties.put("jdbc.busy_timeout", "60000");
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, arguments[2]);
    for (int i = 3; i < arguments.length; i++) {
      int equals = arguments[i].indexOf('=');
      if (equals <= 0) {
        System.err.println("not KEY=VALUE: " + arguments[i]);
        System.exit(2);
      }
      properties.put(arguments[i].substring(0, equals), arguments[i].substring(equals + 1));
    }
    Catalog backend =
        CatalogUtil.buildIcebergCatalog("rest_backend", properties, new Configuration());

    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(
        new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(context);
    server.setStopAtShutdown(true);
    server.start();
    System.out.println(READY + "http://127.0.0.1:" + connector.getLocalPort());
    System.out.flush();
    server.join();
  }
}
