package dev.floe.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConfigReferenceTest {

  @Test
  void docsConfigMdIsTheGeneratedReference() throws Exception {
    Path reference = Path.of(System.getProperty("floe.repository.root"), "docs", "config.md");

    assertThat(Files.readString(reference))
        .as(
            "docs/config.md is out of date; regenerate it with ./floe config --reference > docs/config.md")
        .isEqualTo(ConfigReference.markdown());
  }

  @Test
  void everyKeyHasADescriptionAndAppearsInTheReference() {
    for (ConfigKey key : ConfigSchema.KEYS) {
      assertThat(key.description()).as(key.path()).isNotBlank();
      assertThat(ConfigReference.markdown()).contains("| `" + key.path() + "` |");
    }
  }
}
