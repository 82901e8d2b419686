package dev.floe.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that hands tests the JVM's shared {@link PostgresServer}: declare a parameter
 * of type {@code PostgresServer} in a test, a lifecycle method or a constructor. Tests that need
 * other server settings build their own with {@link PostgresServer#builder()}.
 */
public final class PostgresExtension implements ParameterResolver {

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PostgresServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return PostgresServer.shared();
  }
}
