package dev.floe.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import dev.floe.core.verify.DifferenceKind;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.VerifyReport;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Tables matched by a user-named unique key, and string keys under case-insensitive collations. */
@ExtendWith(MariaDbExtension.class)
class VerifierKeysITCase {

  /** Mixed case, accents, sharp s, digits and punctuation: Java's order is not the collation's. */
  private static final String PREFIXES = "'a', 'B', 'ä', 'Ö', 'ß', 'z', '_', 'É', 'e', 'S'";

  @TempDir Path directory;
  VerifyFixture fixture;

  @BeforeEach
  void start(MariaDbServer server) {
    fixture = new VerifyFixture(server, directory);
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  private String table(String name) {
    return "`" + fixture.database + "`." + name;
  }

  /** 2,000 accounts without a primary key: unique (email) and unique (tenant, handle). */
  private void createAccounts(String collation) {
    fixture.server.execute(
        "CREATE TABLE "
            + table("accounts")
            + " (email VARCHAR(40) COLLATE "
            + collation
            + " NOT NULL, tenant INT NOT NULL, handle VARCHAR(20) COLLATE "
            + collation
            + " NOT NULL, nick VARCHAR(20), score INT, updated_at DATETIME NOT NULL, UNIQUE KEY"
            + " by_email (email), UNIQUE KEY by_handle (tenant, handle), KEY by_score (score))"
            + " DEFAULT CHARSET=utf8mb4",
        "INSERT INTO "
            + table("accounts")
            + " SELECT CONCAT(ELT(1 + seq % 10, "
            + PREFIXES
            + "), seq * 7919 % 10007), seq % 3, CONCAT(ELT(1 + seq % 7, "
            + PREFIXES
            + "), seq), IF(seq % 4 = 0, NULL, CONCAT('n', seq)), seq,"
            + " TIMESTAMP('2025-12-31 23:00:00') - INTERVAL seq HOUR FROM "
            + table("seq_1_to_2000"));
  }

  @Test
  void aTableWithoutPrimaryKeyIsComparedByANamedUniqueStringKey() throws Exception {
    createAccounts("utf8mb4_general_ci");
    fixture.copyToLake("accounts", "updated_at", List.of("email"));

    VerifyResult equal =
        fixture.verify(
            "accounts", "2026-01-01", "7d", VerifyFixture.smallSlices(), List.of("email"));

    assertThat(equal.report().status()).isEqualTo("equal");
    assertThat(equal.report().rowsCompared()).isEqualTo(2000);
    assertThat(equal.slicesNarrowed())
        .as("lake keys land in the slices MySQL's collation gives them")
        .isZero();

    List<String> inWindow = firstKeys("email", "updated_at >= '2025-12-25'", 3);
    String deleted = firstKeys("email", "updated_at < '2025-12-25'", 5).get(3);
    String first = inWindow.get(1);
    fixture.server.execute(
        "DELETE FROM " + table("accounts") + " WHERE email = '" + deleted + "'",
        "UPDATE " + table("accounts") + " SET nick = 'changed' WHERE email = '" + first + "'",
        "INSERT INTO "
            + table("accounts")
            + " VALUES ('Änew', 9, 'x', NULL, 1, '2025-12-31 00:00:00')");
    VerifyReport report =
        fixture
            .verify("accounts", "2026-01-01", "7d", VerifyFixture.smallSlices(), List.of("email"))
            .report();
    assertThat(keys(report, DifferenceKind.MISSING_IN_LAKE)).containsExactly(RowKey.of("Änew"));
    assertThat(keys(report, DifferenceKind.EXTRA_IN_LAKE)).containsExactly(RowKey.of(deleted));
    assertThat(report.found(DifferenceKind.DIFFERENT).keys())
        .containsExactly(Map.entry(RowKey.of(first), List.of("nick")));
  }

  @Test
  void aCompositeStringKeyUnderABinaryCollationIsSlicedInItsOrder() throws Exception {
    createAccounts("utf8mb4_bin");
    fixture.copyToLake("accounts", "updated_at", List.of("handle", "tenant"));

    VerifyResult result =
        fixture.verify(
            "accounts",
            "2026-01-01",
            "7d",
            VerifyFixture.smallSlices(),
            List.of("handle", "tenant"));

    assertThat(result.report().status()).isEqualTo("equal");
    assertThat(result.report().keyColumns().stream().map(column -> column.name()))
        .containsExactly("tenant", "handle");
    assertThat(result.slicesNarrowed()).isZero();
  }

  @Test
  void keysThatCannotIdentifyRowsAreRefusedWithTheUniqueKeysThereAre() {
    createAccounts("utf8mb4_general_ci");
    fixture.server.execute(
        "CREATE TABLE " + table("loose") + " (a INT, b INT, updated_at DATETIME NOT NULL)",
        "CREATE TABLE "
            + table("nullable")
            + " (a INT, updated_at DATETIME NOT NULL, UNIQUE KEY by_a (a))");

    assertThatThrownBy(
            () -> fixture.verify("loose", "2026-01-01", "7d", VerifyFixture.smallSlices()))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Table "
                + fixture.database
                + ".loose has no primary key. verify matches rows by a unique key and slices the"
                + " table along it; name a unique NOT NULL key with --key COLUMN[,COLUMN...] or"
                + " add a primary key to the table.");
    assertThatThrownBy(
            () ->
                fixture.verify(
                    "accounts", "2026-01-01", "7d", VerifyFixture.smallSlices(), List.of("score")))
        .hasMessage(
            "--key score is not a unique key of "
                + fixture.database
                + ".accounts: verify needs a unique index on exactly these columns. Unique keys"
                + " of the table: by_email(email), by_handle(tenant,handle).");
    assertThatThrownBy(
            () ->
                fixture.verify(
                    "nullable", "2026-01-01", "7d", VerifyFixture.smallSlices(), List.of("a")))
        .hasMessage(
            "--key a of "
                + fixture.database
                + ".nullable has nullable columns (a); a unique index allows many NULLs, so"
                + " verify needs NOT NULL key columns.");
  }

  @Test
  void javaReproducesTheCollationOrderOfMySql() throws Exception {
    fixture.server.execute(
        "CREATE TABLE "
            + table("words")
            + " (w VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL)",
        "INSERT INTO "
            + table("words")
            + " VALUES ('a'), ('A'), ('á'), ('Ä'), ('b'), ('B'), ('ß'), ('ss'), ('s'), ('t'),"
            + " ('_'), ('-'), (' a'), ('a '), ('a\\t'), ('€'), ('😀'), ('z'), ('Z'), ('é'),"
            + " ('e'), ('1'), ('10'), ('9'), ('ǅ'), ('ı'), ('I'), ('i'), ('')");
    for (String collation :
        List.of("utf8mb4_general_ci", "utf8mb4_bin", "utf8mb4_unicode_ci", "utf8mb4_nopad_bin")) {
      // utf8mb4_unicode_ci weighs characters outside the BMP by code point ranges verify does
      // not reproduce: keys with them are refused (see docs/verify.md)
      String words =
          collation.equals("utf8mb4_unicode_ci")
              ? table("words") + " WHERE w <> '😀'"
              : table("words");
      List<String> mysql = new ArrayList<>();
      StringOrder order;
      try (Connection connection = fixture.server.rootConnection();
          Statement statement = connection.createStatement()) {
        order = StringOrder.read(connection, "utf8mb4", collation);
        try (ResultSet result =
            statement.executeQuery(
                "SELECT w FROM "
                    + words
                    + " ORDER BY w COLLATE "
                    + collation
                    + ", w COLLATE utf8mb4_bin")) {
          while (result.next()) {
            mysql.add(result.getString(1));
          }
        }
      }
      List<String> java = new ArrayList<>(mysql);
      java.sort((left, right) -> order.compare(left, right));
      // ties (equal under the collation) keep MySQL's order: the sort is stable
      assertThat(java).as(collation).containsExactlyElementsOf(mysql);
      for (int i = 1; i < mysql.size(); i++) {
        assertThat(order.compare(mysql.get(i - 1), mysql.get(i)))
            .as("%s: %s before %s", collation, mysql.get(i - 1), mysql.get(i))
            .isEqualTo(equalUnder(collation, mysql.get(i - 1), mysql.get(i)) ? 0 : -1);
      }
    }
  }

  private boolean equalUnder(String collation, String left, String right) throws Exception {
    try (Connection connection = fixture.server.rootConnection();
        java.sql.PreparedStatement statement =
            connection.prepareStatement(
                "SELECT CONVERT(? USING utf8mb4) COLLATE "
                    + collation
                    + " = CONVERT(? USING utf8mb4) COLLATE "
                    + collation)) {
      statement.setString(1, left);
      statement.setString(2, right);
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        return result.getBoolean(1);
      }
    }
  }

  private List<String> firstKeys(String column, String where, int count) throws Exception {
    List<String> keys = new ArrayList<>();
    try (Connection connection = fixture.server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT "
                    + column
                    + " FROM "
                    + table("accounts")
                    + " WHERE "
                    + where
                    + " ORDER BY "
                    + column
                    + " LIMIT "
                    + count)) {
      while (result.next()) {
        keys.add(result.getString(1));
      }
    }
    return keys;
  }

  private static List<RowKey> keys(VerifyReport report, DifferenceKind kind) {
    return report.found(kind).keys().stream().map(Map.Entry::getKey).toList();
  }
}
