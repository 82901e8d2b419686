package dev.floe.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that hands tests the JVM's shared {@link MariaDbServer} (binlog on, ROW, FULL):
 * declare a parameter of type {@code MariaDbServer} in a test, a lifecycle method or a constructor.
 * Tests that need another configuration build their own with {@link MariaDbServer#builder()}.
 */
public final class MariaDbExtension implements ParameterResolver {

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == MariaDbServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return MariaDbServer.shared();
  }
}
