package dev.floe.core.config;

/**
 * Table properties through which a table tells the keeper ({@code floe serve}) how to treat it.
 * (The opt-out {@code floe.keeper.maintenance.enabled} is {@code MaintenanceLoop.ENABLED} in
 * floe-server.)
 */
public final class KeeperTableProperties {

  /**
   * The worker group that runs the table's optimize tasks: the name of one of {@code
   * keeper.optimizer.groups}, compared ignoring case ({@link OptimizerSettings#group(String)}).
   * Without it the table's tasks go to {@link OptimizerSettings#defaultGroupName()}.
   */
  public static final String GROUP = "floe.keeper.group";

  private KeeperTableProperties() {}
}
