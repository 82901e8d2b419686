package dev.floe.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.FloeSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
  void theExampleIsAValidConfig(@TempDir Path directory) throws Exception {
    String markdown = ConfigReference.markdown();
    String example =
        markdown.substring(markdown.indexOf("```yaml\n") + 8, markdown.lastIndexOf("```"));
    Path file = directory.resolve("floe.yaml");
    Files.writeString(file, example);
    Map<String, String> environment =
        Map.of(
            "CATALOG_DB_PASSWORD", "a",
            "SHOP_DB_PASSWORD", "b",
            "FLOE_KEEPER_TOKEN", "c",
            "KEEPER_DB_PASSWORD", "d");

    FloeSettings settings = new ConfigLoader(environment).load(file, Optional.empty(), directory);

    assertThat(settings.keeper().catalogs()).hasSize(1);
    assertThat(settings.keeper().catalogs().get(0).include()).containsExactly("ods\\..*");
  }

  @Test
  void everyKeyHasADescriptionAndAppearsInTheReference() {
    for (ConfigKey key : ConfigSchema.referenceKeys()) {
      assertThat(key.description()).as(key.path()).isNotBlank();
      assertThat(ConfigReference.markdown()).contains("| `" + key.path() + "` |");
    }
  }
}
