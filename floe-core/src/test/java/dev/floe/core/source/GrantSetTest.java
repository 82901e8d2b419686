package dev.floe.core.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class GrantSetTest {

  @Test
  void mariaDbGlobalGrantsWithBinlogMonitor() {
    GrantSet grants =
        GrantSet.parse(
            List.of(
                "GRANT SELECT, RELOAD, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO `floe`@`%`"
                    + " IDENTIFIED BY PASSWORD '*ABC'"));

    assertThat(grants.hasGlobal("SELECT")).isTrue();
    assertThat(grants.hasGlobal("REPLICATION SLAVE")).isTrue();
    assertThat(grants.hasGlobal("REPLICATION CLIENT", "BINLOG MONITOR")).isTrue();
    assertThat(grants.canSelectDatabase("anything")).isTrue();
  }

  @Test
  void allPrivilegesCoversEverything() {
    GrantSet grants =
        GrantSet.parse(
            List.of("GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"));

    assertThat(grants.hasGlobal("REPLICATION SLAVE")).isTrue();
    assertThat(grants.canSelectDatabase("shop")).isTrue();
  }

  @Test
  void databaseLevelSelectWithWildcardsAndEscapes() {
    GrantSet grants =
        GrantSet.parse(
            List.of(
                "GRANT USAGE ON *.* TO 'floe'@'%'",
                "GRANT SELECT ON `order\\_db\\_%`.* TO 'floe'@'%'",
                "GRANT SELECT ON `shop`.`orders` TO 'floe'@'%'"));

    assertThat(grants.hasGlobal("SELECT")).isFalse();
    assertThat(grants.canSelectDatabase("order_db_07")).isTrue();
    assertThat(grants.canSelectDatabase("orderXdbX07")).isFalse();
    assertThat(grants.canSelectDatabase("shop"))
        .as("a table-level grant is not the database")
        .isFalse();
    assertThat(grants.selectDatabases()).containsExactly("order\\_db\\_%");
  }

  @Test
  void mysqlRoleGrantsAreRecognised() {
    GrantSet grants =
        GrantSet.parse(
            List.of("GRANT USAGE ON *.* TO `floe`@`%`", "GRANT `cdc_reader`@`%` TO `floe`@`%`"));

    assertThat(grants.roles()).containsExactly("cdc_reader");
    assertThat(grants.hasGlobal("REPLICATION SLAVE")).isFalse();
  }
}
