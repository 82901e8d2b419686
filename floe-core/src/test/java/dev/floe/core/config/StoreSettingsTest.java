package dev.floe.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StoreSettingsTest {

  @Test
  void defaultIsSqliteInTheDataDirectory() {
    assertThat(StoreSettings.defaults().jdbcUrl(Path.of("/var/lib/floe")))
        .isEqualTo("jdbc:sqlite:/var/lib/floe/keeper.db");
  }

  @Test
  void givenUrlWins() {
    StoreSettings store =
        new StoreSettings(
            Optional.of("jdbc:postgresql://db:5432/keeper"), Optional.empty(), Optional.empty());

    assertThat(store.jdbcUrl(Path.of("/var/lib/floe")))
        .isEqualTo("jdbc:postgresql://db:5432/keeper");
  }

  @Test
  void maskPasswordHidesParametersAndUserInfo() {
    assertThat(
            StoreSettings.maskPassword(
                "jdbc:postgresql://db:5432/keeper?user=floe&password=hunter2&ssl=true"))
        .isEqualTo("jdbc:postgresql://db:5432/keeper?user=floe&password=******&ssl=true");
    assertThat(StoreSettings.maskPassword("jdbc:postgresql://db/keeper;PASSWORD=hunter2"))
        .isEqualTo("jdbc:postgresql://db/keeper;PASSWORD=******");
    assertThat(StoreSettings.maskPassword("postgresql://floe:hunter2@db:5432/keeper"))
        .isEqualTo("postgresql://floe:******@db:5432/keeper");
    assertThat(StoreSettings.maskPassword("jdbc:sqlite:/var/lib/floe/keeper.db"))
        .isEqualTo("jdbc:sqlite:/var/lib/floe/keeper.db");
  }
}
