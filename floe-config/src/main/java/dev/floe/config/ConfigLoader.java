package dev.floe.config;

import static java.util.Objects.requireNonNull;

import dev.floe.config.ConfigKey.Kind;
import dev.floe.core.Secret;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.error.FloeException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads {@code floe.yaml} into {@link FloeSettings}. Every problem (YAML syntax, an unknown key, a
 * wrong type, a missing required value, an unset environment variable) is a {@link FloeException}
 * of category BAD_INPUT whose message names the file, the line, the key and the fix; a secret's
 * value never appears in a message.
 *
 * <p>String values may refer to environment variables as {@code ${env:NAME}}.
 */
public final class ConfigLoader {

  private static final Pattern ENVIRONMENT_REFERENCE =
      Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)\\}");

  private final Map<String, String> environment;

  /**
   * @param environment the process environment ({@code System.getenv()}), injected for tests
   */
  public ConfigLoader(Map<String, String> environment) {
    this.environment = Map.copyOf(requireNonNull(environment, "environment is null"));
  }

  /** A value as found in the file, with its line. */
  record Located(Object value, int line) {}

  /**
   * Loads and validates a config file.
   *
   * @param file the file to read
   * @param dataDirectoryOverride {@code --data-dir}, which beats the file's {@code data-dir}
   * @param workingDirectory what relative paths are resolved against
   */
  public FloeSettings load(Path file, Optional<Path> dataDirectoryOverride, Path workingDirectory) {
    Map<String, Located> values = read(file);
    return toSettings(file, values, dataDirectoryOverride, workingDirectory);
  }

  Map<String, Located> read(Path file) {
    Node root;
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(false);
      root = new Yaml(options).compose(reader);
    } catch (NoSuchFileException missing) {
      throw FloeException.badInput(
          "Config file "
              + file
              + " does not exist. Check the --config path, or leave --config out"
              + " to run on embedded defaults.");
    } catch (IOException e) {
      throw FloeException.badInput(
          "Config file " + file + " cannot be read: " + e.getMessage() + ".");
    } catch (MarkedYAMLException e) {
      int line = e.getProblemMark() == null ? 0 : e.getProblemMark().getLine() + 1;
      throw FloeException.badInput(
          where(file, line)
              + "this is not valid YAML ("
              + e.getProblem()
              + "). Fix the syntax at that line.");
    }
    Map<String, Located> values = new LinkedHashMap<>();
    if (root == null) {
      return values;
    }
    if (!(root instanceof MappingNode mapping)) {
      throw FloeException.badInput(
          where(file, line(root))
              + "the file must be a YAML mapping of keys ("
              + String.join(", ", ConfigSchema.namesUnder(""))
              + "), not "
              + describe(root)
              + ".");
    }
    readSection(file, "", mapping, values);
    return values;
  }

  private void readSection(
      Path file, String section, MappingNode mapping, Map<String, Located> values) {
    Set<String> seen = new HashSet<>();
    for (NodeTuple tuple : mapping.getValue()) {
      Node keyNode = tuple.getKeyNode();
      Node valueNode = tuple.getValueNode();
      String name =
          keyNode instanceof ScalarNode scalar ? scalar.getValue() : String.valueOf(keyNode);
      String path = section.isEmpty() ? name : section + "." + name;
      if (!seen.add(name)) {
        throw FloeException.badInput(
            where(file, line(keyNode)) + "key '" + path + "' appears twice. Keep one of them.");
      }
      Optional<ConfigKey> key = ConfigSchema.key(path);
      if (key.isPresent()) {
        Object value = readValue(file, key.get(), valueNode);
        if (value != null) {
          values.put(path, new Located(value, line(valueNode)));
        }
      } else if (ConfigSchema.sections().contains(path)) {
        if (isNull(valueNode)) {
          continue;
        }
        if (!(valueNode instanceof MappingNode child)) {
          throw FloeException.badInput(
              where(file, line(valueNode))
                  + "'"
                  + path
                  + "' must be a section with the keys "
                  + String.join(", ", ConfigSchema.namesUnder(path))
                  + ", not "
                  + describe(valueNode)
                  + ".");
        }
        readSection(file, path, child, values);
      } else {
        throw unknownKey(file, keyNode, section, path, name);
      }
    }
  }

  private FloeException unknownKey(
      Path file, Node keyNode, String section, String path, String name) {
    List<String> known = ConfigSchema.namesUnder(section);
    Optional<String> suggestion =
        known.stream().filter(candidate -> distance(candidate, name) <= 2).findFirst();
    StringBuilder message = new StringBuilder(where(file, line(keyNode)));
    message.append("unknown key '").append(path).append("'.");
    suggestion.ifPresent(
        candidate ->
            message
                .append(" Did you mean '")
                .append(section.isEmpty() ? candidate : section + "." + candidate)
                .append("'?"));
    message
        .append(
            section.isEmpty()
                ? " The top-level keys are: "
                : " The keys under '" + section + "' are: ")
        .append(String.join(", ", known))
        .append(". Every key is listed in docs/config.md and by 'floe config --reference'.");
    return FloeException.badInput(message.toString());
  }

  private Object readValue(Path file, ConfigKey key, Node node) {
    if (isNull(node)) {
      return null;
    }
    if (key.kind() == Kind.LIST) {
      if (node instanceof ScalarNode single) {
        return List.of(interpolate(file, key.path(), single));
      }
      if (!(node instanceof SequenceNode sequence)) {
        throw wrongType(file, key, node);
      }
      List<String> items = new java.util.ArrayList<>();
      for (Node item : sequence.getValue()) {
        if (!(item instanceof ScalarNode scalar)) {
          throw FloeException.badInput(
              where(file, line(item))
                  + key.path()
                  + " must be a list of strings; this item is "
                  + describe(item)
                  + ".");
        }
        items.add(interpolate(file, key.path(), scalar));
      }
      return List.copyOf(items);
    }
    if (key.kind() == Kind.MAP) {
      if (!(node instanceof MappingNode mapping)) {
        throw wrongType(file, key, node);
      }
      Map<String, String> map = new LinkedHashMap<>();
      for (NodeTuple tuple : mapping.getValue()) {
        if (!(tuple.getKeyNode() instanceof ScalarNode name)
            || !(tuple.getValueNode() instanceof ScalarNode value)) {
          throw FloeException.badInput(
              where(file, line(tuple.getKeyNode()))
                  + key.path()
                  + " must map names to single values (strings); this entry is "
                  + describe(tuple.getValueNode())
                  + ".");
        }
        if (map.put(name.getValue(), interpolate(file, key.path() + "." + name.getValue(), value))
            != null) {
          throw FloeException.badInput(
              where(file, line(name))
                  + "key '"
                  + key.path()
                  + "."
                  + name.getValue()
                  + "' appears twice. Keep one of them.");
        }
      }
      return map;
    }
    if (!(node instanceof ScalarNode scalar)) {
      throw wrongType(file, key, node);
    }
    String text = interpolate(file, key.path(), scalar);
    switch (key.kind()) {
      case INTEGER:
        try {
          long number = Long.parseLong(text.trim());
          if (number >= key.minimum()) {
            return number;
          }
        } catch (NumberFormatException notANumber) {
          // reported below
        }
        throw wrongType(file, key, node);
      case CHOICE:
        String choice = text.trim().toLowerCase(Locale.ROOT);
        if (key.allowed().contains(choice)) {
          return choice;
        }
        throw wrongType(file, key, node);
      default:
        return text;
    }
  }

  private String interpolate(Path file, String path, ScalarNode scalar) {
    Matcher matcher = ENVIRONMENT_REFERENCE.matcher(scalar.getValue());
    StringBuilder result = new StringBuilder();
    while (matcher.find()) {
      String variable = matcher.group(1);
      String value = environment.get(variable);
      if (value == null) {
        throw FloeException.badInput(
            where(file, line(scalar))
                + path
                + " refers to the environment variable "
                + variable
                + ", which is not set. Set it (export "
                + variable
                + "=...) before running floe, or write the value in the file.");
      }
      matcher.appendReplacement(result, Matcher.quoteReplacement(value));
    }
    matcher.appendTail(result);
    return result.toString();
  }

  private FloeException wrongType(Path file, ConfigKey key, Node node) {
    String got;
    if (key.secret()) {
      got = describeShape(node);
    } else if (node instanceof ScalarNode scalar) {
      got = "'" + scalar.getValue() + "'";
    } else {
      got = describe(node);
    }
    return FloeException.badInput(
        where(file, line(node))
            + key.path()
            + " must be "
            + article(key)
            + ", got "
            + got
            + ". See docs/config.md for what it takes.");
  }

  private static String article(ConfigKey key) {
    return switch (key.kind()) {
      case CHOICE -> key.typeDescription();
      case INTEGER -> "an " + key.typeDescription();
      case MAP -> "a map of names to values";
      case LIST -> "a list of strings";
      default -> "a single value (" + key.kind().description() + ")";
    };
  }

  private FloeSettings toSettings(
      Path file,
      Map<String, Located> values,
      Optional<Path> dataDirectoryOverride,
      Path workingDirectory) {
    Path dataDirectory =
        dataDirectoryOverride.orElseGet(
            () ->
                Optional.ofNullable(values.get(ConfigSchema.DATA_DIR.path()))
                    .map(located -> Path.of((String) located.value()))
                    .orElse(Path.of(FloeSettings.DEFAULT_DATA_DIRECTORY)));
    dataDirectory = workingDirectory.resolve(dataDirectory).toAbsolutePath().normalize();

    CatalogType type =
        string(values, ConfigSchema.CATALOG_TYPE)
            .map(name -> CatalogType.valueOf(name.toUpperCase(Locale.ROOT)))
            .orElse(CatalogType.EMBEDDED);
    Optional<String> uri = string(values, ConfigSchema.CATALOG_URI);
    Optional<String> warehouse = string(values, ConfigSchema.CATALOG_WAREHOUSE);
    int catalogLine =
        values.getOrDefault(ConfigSchema.CATALOG_TYPE.path(), new Located("", 0)).line();
    if (uri.isEmpty() && (type == CatalogType.JDBC || type == CatalogType.REST)) {
      throw FloeException.badInput(
          where(file, catalogLine)
              + "catalog.uri is required when catalog.type is "
              + type.configName()
              + ". Add it under catalog, e.g. uri: "
              + exampleUri(type)
              + ".");
    }
    if (warehouse.isEmpty() && (type == CatalogType.JDBC || type == CatalogType.HADOOP)) {
      throw FloeException.badInput(
          where(file, catalogLine)
              + "catalog.warehouse is required when catalog.type is "
              + type.configName()
              + ". Add it under catalog, e.g. warehouse: s3://bucket/warehouse or"
              + " hdfs://namenode:8020/warehouse.");
    }
    if (type == CatalogType.EMBEDDED && uri.isPresent()) {
      throw FloeException.badInput(
          where(file, values.get(ConfigSchema.CATALOG_URI.path()).line())
              + "catalog.uri is not used by the embedded catalog (it lives in <data-dir>/catalog.db)."
              + " Remove it, or set catalog.type to jdbc or rest.");
    }
    @SuppressWarnings("unchecked")
    Map<String, String> properties =
        Optional.ofNullable(values.get(ConfigSchema.CATALOG_PROPERTIES.path()))
            .map(located -> (Map<String, String>) located.value())
            .orElse(Map.of());
    CatalogSettings catalog =
        new CatalogSettings(
            type,
            string(values, ConfigSchema.CATALOG_NAME).orElse("floe"),
            uri,
            warehouse,
            properties);
    long retentionHours =
        Optional.ofNullable(values.get(ConfigSchema.DOCTOR_MIN_BINLOG_RETENTION_HOURS.path()))
            .map(located -> (Long) located.value())
            .orElse(FloeSettings.DEFAULT_MINIMUM_BINLOG_RETENTION.toHours());
    SyncSettings sync =
        new SyncSettings(
            list(values, ConfigSchema.SYNC_TABLES),
            list(values, ConfigSchema.SYNC_EXCLUDE),
            string(values, ConfigSchema.SYNC_TARGET_NAMESPACE),
            Duration.ofSeconds(
                number(values, ConfigSchema.SYNC_CHECKPOINT_INTERVAL_SECONDS)
                    .orElse(SyncSettings.DEFAULT_CHECKPOINT_INTERVAL.toSeconds())),
            number(values, ConfigSchema.SYNC_PARALLELISM)
                .orElse((long) SyncSettings.DEFAULT_PARALLELISM)
                .intValue(),
            number(values, ConfigSchema.SYNC_CHUNK_ROWS)
                .orElse((long) SyncSettings.DEFAULT_CHUNK_ROWS)
                .intValue(),
            string(values, ConfigSchema.SYNC_SERVER_TIME_ZONE),
            number(values, ConfigSchema.SYNC_SNAPSHOT_ROWS_PER_SECOND).orElse(0L),
            Optional.ofNullable(values.get(ConfigSchema.SYNC_PARTITIONS.path()))
                .map(located -> (Map<String, String>) located.value())
                .orElse(Map.of()),
            string(values, ConfigSchema.SYNC_FLINK),
            list(values, ConfigSchema.SYNC_ROUTES));
    return new FloeSettings(
        dataDirectory,
        catalog,
        string(values, ConfigSchema.SOURCE_URL),
        string(values, ConfigSchema.SOURCE_PASSWORD).map(Secret::of),
        Duration.ofHours(retentionHours),
        sync);
  }

  private static String exampleUri(CatalogType type) {
    return switch (type) {
      case JDBC -> "jdbc:postgresql://host:5432/iceberg";
      case REST -> "http://host:8181";
      default -> "";
    };
  }

  @SuppressWarnings("unchecked")
  private static List<String> list(Map<String, Located> values, ConfigKey key) {
    return Optional.ofNullable(values.get(key.path()))
        .map(located -> (List<String>) located.value())
        .orElse(List.of());
  }

  private static Optional<Long> number(Map<String, Located> values, ConfigKey key) {
    return Optional.ofNullable(values.get(key.path())).map(located -> (Long) located.value());
  }

  private static Optional<String> string(Map<String, Located> values, ConfigKey key) {
    return Optional.ofNullable(values.get(key.path())).map(located -> (String) located.value());
  }

  private static String where(Path file, int line) {
    return "Config file " + file + (line > 0 ? ", line " + line : "") + ": ";
  }

  private static int line(Node node) {
    return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
  }

  private static boolean isNull(Node node) {
    return node instanceof ScalarNode && Tag.NULL.equals(node.getTag());
  }

  private static String describe(Node node) {
    if (node instanceof ScalarNode scalar) {
      return "'" + scalar.getValue() + "'";
    }
    return describeShape(node);
  }

  private static String describeShape(Node node) {
    if (node instanceof SequenceNode) {
      return "a list";
    }
    if (node instanceof MappingNode) {
      return "a section of keys";
    }
    return "a value that is not allowed there";
  }

  /** Edit distance, for "did you mean". */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
