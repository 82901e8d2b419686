package dev.floe.config;

/** Renders the config reference ({@code docs/config.md}) from {@link ConfigSchema}. */
public final class ConfigReference {

  private ConfigReference() {}

  public static String markdown() {
    StringBuilder text = new StringBuilder();
    text.append("# floe.yaml reference\n\n")
        .append(
            "Generated from the code (`ConfigSchema`); a test keeps this file in sync. Print it")
        .append(" with `./floe config --reference`.\n\n")
        .append("Floe reads one YAML file, given with `--config FILE`. Without one, every key has")
        .append(" its default: an embedded catalog and warehouse under `./floe-data`. An unknown")
        .append(" key, a wrong type or a missing required value stops Floe with a message naming")
        .append(" the file, the line and the key. Any string value may use `${env:NAME}` to read")
        .append(" an environment variable (quoted, '${env:NAME}', inside a `{ ... }` mapping);")
        .append(" secrets are never printed.\n\n")
        .append("| key | type | default | description |\n")
        .append("|---|---|---|---|\n");
    for (ConfigKey key : ConfigSchema.referenceKeys()) {
      text.append("| `")
          .append(key.path())
          .append("` | ")
          .append(key.typeDescription())
          .append(key.secret() ? " (secret)" : "")
          .append(" | ")
          .append(key.defaultValue().map(value -> "`" + value + "`").orElse("none"))
          .append(" | ")
          .append(key.description().replace("|", "\\|"))
          .append(" |\n");
    }
    text.append("\n## Example\n\n```yaml\n")
        .append("data-dir: /var/lib/floe\n")
        .append("catalog:\n")
        .append("  type: jdbc\n")
        .append("  uri: jdbc:postgresql://catalog-db:5432/iceberg\n")
        .append("  warehouse: s3://lake/warehouse\n")
        .append("  properties:\n")
        .append("    jdbc.user: iceberg\n")
        .append("    jdbc.password: ${env:CATALOG_DB_PASSWORD}\n")
        .append("source:\n")
        .append("  url: mysql://floe@mysql.internal:3306/shop\n")
        .append("  password: ${env:SHOP_DB_PASSWORD}\n")
        .append("doctor:\n")
        .append("  min-binlog-retention-hours: 72\n")
        .append("keeper:\n")
        .append("  listen: 0.0.0.0:8420\n")
        .append("  api-token: ${env:FLOE_KEEPER_TOKEN}\n")
        .append("  store:\n")
        .append("    url: jdbc:postgresql://keeper-db:5432/keeper\n")
        .append("    user: keeper\n")
        .append("    password: ${env:KEEPER_DB_PASSWORD}\n")
        .append("  optimizer: { threads: 4 }\n")
        .append("  catalogs:\n")
        .append("    - name: prod\n")
        .append("      type: rest\n")
        .append("      uri: http://rest-catalog:8181\n")
        .append("      include: ['ods\\..*']\n")
        .append("      exclude: ['tmp\\..*']\n")
        .append("```\n");
    return text.toString();
  }
}
