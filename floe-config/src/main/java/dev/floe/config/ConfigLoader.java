package dev.floe.config;

import static java.util.Objects.requireNonNull;

import dev.floe.config.ConfigKey.Kind;
import dev.floe.core.Secret;
import dev.floe.core.alert.AlertChannelSettings;
import dev.floe.core.alert.AlertChannelType;
import dev.floe.core.alert.AlertRule;
import dev.floe.core.alert.AlertRuleSettings;
import dev.floe.core.alert.AlertSettings;
import dev.floe.core.alert.AlertThreshold;
import dev.floe.core.alert.SmtpSettings;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.KafkaSyncSettings;
import dev.floe.core.config.KeeperCatalog;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.config.MaintenanceIntervals;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.SizeText;
import dev.floe.core.config.StoreSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.config.VerificationSettings;
import dev.floe.core.config.WorkerGroupKind;
import dev.floe.core.config.WorkerGroupSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.DurationText;
import dev.floe.core.source.MySqlSourceAddress;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
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
  private static final Pattern DECIMAL = Pattern.compile("\\d+(\\.\\d*)?|\\.\\d+");

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
   * One item of a list of sections ({@link Kind#CATALOGS}, {@link Kind#GROUPS}) as found in the
   * file.
   *
   * @param path how messages name it, e.g. {@code keeper.catalogs[0]}
   * @param line where it starts
   * @param values its values by key name ({@code type}, not {@code keeper.catalogs[0].type})
   */
  record SectionItem(String path, int line, Map<String, Located> values) {}

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
      String name = keyName(keyNode);
      String path = section.isEmpty() ? name : section + "." + name;
      if (!seen.add(name)) {
        throw appearsTwice(file, keyNode, path);
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
        throw unknownKey(file, keyNode, section, path, name, ConfigSchema.namesUnder(section));
      }
    }
  }

  private static String keyName(Node keyNode) {
    return keyNode instanceof ScalarNode scalar ? scalar.getValue() : String.valueOf(keyNode);
  }

  private static FloeException appearsTwice(Path file, Node keyNode, String path) {
    return FloeException.badInput(
        where(file, line(keyNode)) + "key '" + path + "' appears twice. Keep one of them.");
  }

  private FloeException unknownKey(
      Path file, Node keyNode, String section, String path, String name, List<String> known) {
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
    switch (key.kind()) {
      case LIST, PATTERNS:
        return readStrings(file, key, node);
      case MAP:
        return readMap(file, key, node);
      case CATALOGS:
        return readItems(file, key, node, ConfigSchema.catalogItemKeys());
      case GROUPS:
        return readItems(file, key, node, ConfigSchema.groupItemKeys());
      case CHANNELS:
        return readItems(file, key, node, ConfigSchema.channelItemKeys());
      case VERIFICATIONS:
        return readItems(file, key, node, ConfigSchema.verificationItemKeys());
      default:
        break;
    }
    if (!(node instanceof ScalarNode scalar)) {
      throw wrongType(file, key, node);
    }
    String text = interpolate(file, key.path(), scalar);
    Optional<?> value =
        switch (key.kind()) {
          case INTEGER -> integer(text).filter(number -> number >= key.minimum());
          case CHOICE ->
              Optional.of(text.trim().toLowerCase(Locale.ROOT)).filter(key.allowed()::contains);
          case DURATION -> DurationText.parse(text).filter(duration -> !duration.isZero());
          case DURATION_OR_ZERO ->
              text.trim().equals("0") ? Optional.of(Duration.ZERO) : DurationText.parse(text);
          case FRACTION -> fraction(text);
          case ADDRESS -> ListenAddress.parse(text);
          case SIZE -> SizeText.parse(text).filter(bytes -> bytes >= key.minimum());
          case HTTP_ADDRESS -> WorkerGroupSettings.parseFlinkAddress(text);
          default -> Optional.of(text);
        };
    return value.orElseThrow(() -> wrongType(file, key, node));
  }

  private static Optional<Long> integer(String text) {
    try {
      return Optional.of(Long.parseLong(text.trim()));
    } catch (NumberFormatException notANumber) {
      return Optional.empty();
    }
  }

  /** A plain decimal above 0 and at most 1 ({@code Double.parseDouble} alone takes 1e0 and NaN). */
  private static Optional<Double> fraction(String text) {
    String value = text.trim();
    if (!DECIMAL.matcher(value).matches()) {
      return Optional.empty();
    }
    double number = Double.parseDouble(value);
    return number > 0 && number <= 1 ? Optional.of(number) : Optional.empty();
  }

  /** A list of strings, or one string as a list of one; for PATTERNS each must compile. */
  private List<String> readStrings(Path file, ConfigKey key, Node node) {
    List<ScalarNode> scalars = new ArrayList<>();
    if (node instanceof ScalarNode single) {
      scalars.add(single);
    } else if (node instanceof SequenceNode sequence) {
      for (Node item : sequence.getValue()) {
        if (!(item instanceof ScalarNode scalar)) {
          throw FloeException.badInput(
              where(file, line(item))
                  + key.path()
                  + " must be "
                  + article(key)
                  + "; this item is "
                  + describe(item)
                  + ".");
        }
        scalars.add(scalar);
      }
    } else {
      throw wrongType(file, key, node);
    }
    List<String> items = new ArrayList<>();
    for (ScalarNode scalar : scalars) {
      String item = interpolate(file, key.path(), scalar);
      if (key.kind() == Kind.PATTERNS) {
        checkPattern(file, key, scalar, item);
      }
      items.add(item);
    }
    return List.copyOf(items);
  }

  private static void checkPattern(Path file, ConfigKey key, ScalarNode node, String pattern) {
    try {
      Pattern.compile(pattern);
    } catch (PatternSyntaxException e) {
      throw FloeException.badInput(
          where(file, line(node))
              + key.path()
              + " has '"
              + pattern
              + "', which is not a regular expression: "
              + e.getDescription()
              + (e.getIndex() >= 0 ? " at index " + e.getIndex() : "")
              + ". Fix it (Java regular expression syntax; a literal dot is \\.).");
    }
  }

  private Map<String, String> readMap(Path file, ConfigKey key, Node node) {
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
        throw appearsTwice(file, name, key.path() + "." + name.getValue());
      }
    }
    return map;
  }

  /**
   * The items of a list of sections, each key read as the key of {@code itemKeys} it names; what
   * the items mean together is checked in {@link #keeperCatalogs} and {@link #workerGroups}.
   */
  private List<SectionItem> readItems(
      Path file, ConfigKey key, Node node, Map<String, ConfigKey> itemKeys) {
    if (!(node instanceof SequenceNode sequence)) {
      throw wrongType(file, key, node);
    }
    List<SectionItem> items = new ArrayList<>();
    for (Node itemNode : sequence.getValue()) {
      String itemPath = key.path() + "[" + items.size() + "]";
      if (!(itemNode instanceof MappingNode mapping)) {
        throw FloeException.badInput(
            where(file, line(itemNode))
                + "'"
                + itemPath
                + "' must be a section with the keys "
                + String.join(", ", itemKeys.keySet())
                + ", not "
                + describe(itemNode)
                + ".");
      }
      Set<String> seen = new HashSet<>();
      Map<String, Located> values = new LinkedHashMap<>();
      for (NodeTuple tuple : mapping.getValue()) {
        Node keyNode = tuple.getKeyNode();
        String name = keyName(keyNode);
        String path = itemPath + "." + name;
        if (!seen.add(name)) {
          throw appearsTwice(file, keyNode, path);
        }
        ConfigKey itemKey = itemKeys.get(name);
        if (itemKey == null) {
          throw unknownKey(file, keyNode, itemPath, path, name, List.copyOf(itemKeys.keySet()));
        }
        Object value = readValue(file, itemKey.at(path), tuple.getValueNode());
        if (value != null) {
          values.put(name, new Located(value, line(tuple.getValueNode())));
        }
      }
      items.add(new SectionItem(itemPath, line(itemNode), values));
    }
    return List.copyOf(items);
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
      case PATTERNS -> "a list of regular expressions";
      case DURATION -> "a duration above zero such as 30s, 15m, 12h or 3d";
      case FRACTION -> "a decimal above 0 and at most 1";
      case ADDRESS ->
          "HOST:PORT with a port from 1 to 65535 (e.g. 127.0.0.1:8420, or [::1]:8420"
              + " for IPv6)";
      case CATALOGS -> "a list of catalog sections";
      case GROUPS -> "a list of worker group sections";
      case CHANNELS -> "a list of alert channel sections";
      case VERIFICATIONS -> "a list of verification sections";
      case DURATION_OR_ZERO -> "a duration such as 30m or 4h, or 0 for never";
      case SIZE ->
          "a size of at least "
              + SizeText.format(key.minimum())
              + " such as 512m or 2g (bytes, or a number with k, m or g)";
      case HTTP_ADDRESS ->
          "HOST:PORT or http(s)://HOST:PORT with a port from 1 to 65535 (e.g. flink-jm:8081, or"
              + " https://flink.example.com:8443)";
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

    CatalogSettings catalog = catalog(file, "catalog", under(values, "catalog"), 0);
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
            list(values, ConfigSchema.SYNC_ROUTES),
            Duration.ofSeconds(
                number(values, ConfigSchema.SYNC_HEARTBEAT_INTERVAL_SECONDS)
                    .orElse(SyncSettings.DEFAULT_HEARTBEAT_INTERVAL.toSeconds())),
            new KafkaSyncSettings(
                string(values, ConfigSchema.SYNC_TOPICS),
                string(values, ConfigSchema.SYNC_FORMAT),
                string(values, ConfigSchema.SYNC_STARTING_OFFSETS),
                Optional.ofNullable(values.get(ConfigSchema.SYNC_KAFKA_PROPERTIES.path()))
                    .map(located -> (Map<String, String>) located.value())
                    .orElse(Map.of()),
                string(values, ConfigSchema.SYNC_DEAD_LETTER),
                string(values, ConfigSchema.SYNC_ON_BAD_MESSAGE),
                string(values, ConfigSchema.SYNC_TARGET),
                list(values, ConfigSchema.SYNC_KEY),
                string(values, ConfigSchema.SYNC_KAFKA_SCHEMA)),
            string(values, ConfigSchema.SYNC_STATE_DIR));
    return new FloeSettings(
        dataDirectory,
        catalog,
        string(values, ConfigSchema.SOURCE_URL),
        string(values, ConfigSchema.SOURCE_PASSWORD).map(Secret::of),
        Duration.ofHours(retentionHours),
        sync,
        keeper(file, values, catalog));
  }

  /**
   * A catalog section: the top-level {@code catalog} or an item of {@code keeper.catalogs}.
   *
   * @param section how messages name it
   * @param values its values by key name ({@code type}, {@code uri}, ...)
   * @param sectionLine the line messages name when the section has no {@code type}
   */
  private static CatalogSettings catalog(
      Path file, String section, Map<String, Located> values, int sectionLine) {
    CatalogType type =
        value(values, ConfigSchema.CATALOG_TYPE.name(), String.class)
            .map(name -> CatalogType.valueOf(name.toUpperCase(Locale.ROOT)))
            .orElse(CatalogType.EMBEDDED);
    Optional<String> uri = value(values, ConfigSchema.CATALOG_URI.name(), String.class);
    Optional<String> warehouse = value(values, ConfigSchema.CATALOG_WAREHOUSE.name(), String.class);
    int typeLine =
        Optional.ofNullable(values.get(ConfigSchema.CATALOG_TYPE.name()))
            .map(Located::line)
            .orElse(sectionLine);
    if (uri.isEmpty() && (type == CatalogType.JDBC || type == CatalogType.REST)) {
      throw FloeException.badInput(
          where(file, typeLine)
              + section
              + ".uri is required when "
              + section
              + ".type is "
              + type.configName()
              + ". Add it under "
              + section
              + ", e.g. uri: "
              + exampleUri(type)
              + ".");
    }
    if (warehouse.isEmpty() && (type == CatalogType.JDBC || type == CatalogType.HADOOP)) {
      throw FloeException.badInput(
          where(file, typeLine)
              + section
              + ".warehouse is required when "
              + section
              + ".type is "
              + type.configName()
              + ". Add it under "
              + section
              + ", e.g. warehouse: s3://bucket/warehouse or hdfs://namenode:8020/warehouse.");
    }
    if (uri.isPresent() && (type == CatalogType.JDBC || type == CatalogType.REST)) {
      String text = uri.get().toLowerCase(Locale.ROOT);
      boolean jdbcUrl = text.startsWith("jdbc:");
      boolean httpUrl = text.startsWith("http://") || text.startsWith("https://");
      if (type == CatalogType.JDBC ? !jdbcUrl : !httpUrl) {
        CatalogType fitting = jdbcUrl ? CatalogType.JDBC : httpUrl ? CatalogType.REST : type;
        throw FloeException.badInput(
            where(file, values.get(ConfigSchema.CATALOG_URI.name()).line())
                + section
                + ".uri '"
                + withoutQuery(uri.get())
                + "' is not "
                + (type == CatalogType.JDBC ? "a JDBC URL" : "an http(s) URL")
                + ", which a "
                + type.configName()
                + " catalog needs. Write it as e.g. "
                + exampleUri(type)
                + (fitting != type
                    ? ", or set " + section + ".type to " + fitting.configName()
                    : "")
                + ".");
      }
    }
    if (type == CatalogType.EMBEDDED && uri.isPresent()) {
      throw FloeException.badInput(
          where(file, values.get(ConfigSchema.CATALOG_URI.name()).line())
              + section
              + ".uri is not used by the embedded catalog (it lives in <data-dir>/catalog.db)."
              + " Remove it, or set "
              + section
              + ".type to jdbc or rest.");
    }
    @SuppressWarnings("unchecked")
    Map<String, String> given =
        value(values, ConfigSchema.CATALOG_PROPERTIES.name(), Map.class)
            .map(map -> (Map<String, String>) map)
            .orElse(Map.of());
    Map<String, String> properties = new LinkedHashMap<>(given);
    s3Properties(file, section, values, given).forEach(properties::put);
    hadoopProperties(file, section, values, given).forEach(properties::put);
    return new CatalogSettings(
        type,
        value(values, ConfigSchema.CATALOG_NAME.name(), String.class).orElse("floe"),
        uri,
        warehouse,
        properties);
  }

  /**
   * The catalog properties of a catalog section's {@code hadoop} map: {@code hadoop.KEY} for each
   * Hadoop setting {@code KEY} (what Floe's Hadoop configuration reads), each given once.
   */
  private static Map<String, String> hadoopProperties(
      Path file, String section, Map<String, Located> values, Map<String, String> given) {
    Located located = values.get(ConfigSchema.CATALOG_HADOOP.name());
    if (located == null) {
      return Map.of();
    }
    @SuppressWarnings("unchecked")
    Map<String, String> settings = (Map<String, String>) located.value();
    Map<String, String> properties = new LinkedHashMap<>();
    for (Map.Entry<String, String> setting : settings.entrySet()) {
      String property = "hadoop." + setting.getKey();
      if (given.containsKey(property)) {
        throw FloeException.badInput(
            where(file, located.line())
                + section
                + ".hadoop "
                + setting.getKey()
                + " and "
                + section
                + ".properties "
                + property
                + " set the same thing. Keep it under "
                + section
                + ".hadoop and remove the property.");
      }
      properties.put(property, setting.getValue());
    }
    return properties;
  }

  /** The Iceberg property each catalog.s3-* key sets (S3FileIO's names). */
  private static final Map<ConfigKey, String> S3_PROPERTIES =
      orderedMap(
          ConfigSchema.CATALOG_S3_ENDPOINT, "s3.endpoint",
          ConfigSchema.CATALOG_S3_REGION, "client.region",
          ConfigSchema.CATALOG_S3_PATH_STYLE_ACCESS, "s3.path-style-access",
          ConfigSchema.CATALOG_S3_ACCESS_KEY_ID, "s3.access-key-id",
          ConfigSchema.CATALOG_S3_SECRET_ACCESS_KEY, "s3.secret-access-key");

  private static Map<ConfigKey, String> orderedMap(Object... keysAndNames) {
    Map<ConfigKey, String> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndNames.length; i += 2) {
      map.put((ConfigKey) keysAndNames[i], (String) keysAndNames[i + 1]);
    }
    return map;
  }

  /**
   * The Iceberg properties of a catalog section's s3-* keys. Each may be given once: as its key or
   * as the Iceberg property in {@code properties}, not both; the access key id and the secret come
   * together.
   */
  private static Map<String, String> s3Properties(
      Path file, String section, Map<String, Located> values, Map<String, String> given) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (Map.Entry<ConfigKey, String> entry : S3_PROPERTIES.entrySet()) {
      Located located = values.get(entry.getKey().name());
      if (located == null) {
        continue;
      }
      if (given.containsKey(entry.getValue())) {
        throw FloeException.badInput(
            where(file, located.line())
                + section
                + "."
                + entry.getKey().name()
                + " and "
                + section
                + ".properties "
                + entry.getValue()
                + " set the same thing. Keep "
                + section
                + "."
                + entry.getKey().name()
                + " and remove the property.");
      }
      properties.put(entry.getValue(), String.valueOf(located.value()));
    }
    Located accessKey = values.get(ConfigSchema.CATALOG_S3_ACCESS_KEY_ID.name());
    Located secretKey = values.get(ConfigSchema.CATALOG_S3_SECRET_ACCESS_KEY.name());
    if ((accessKey == null) != (secretKey == null)) {
      Located present = accessKey != null ? accessKey : secretKey;
      String missing =
          accessKey == null
              ? ConfigSchema.CATALOG_S3_ACCESS_KEY_ID.name()
              : ConfigSchema.CATALOG_S3_SECRET_ACCESS_KEY.name();
      throw FloeException.badInput(
          where(file, present.line())
              + section
              + "."
              + missing
              + " is missing: S3 credentials are an access key id and a secret access key"
              + " together. Add it (e.g. "
              + missing
              + ": ${env:"
              + missing.toUpperCase(Locale.ROOT).replace('-', '_')
              + "}), or remove both to use the AWS SDK's own credentials.");
    }
    return properties;
  }

  private static KeeperSettings keeper(
      Path file, Map<String, Located> values, CatalogSettings topCatalog) {
    Optional<Located> storeUrl =
        Optional.ofNullable(values.get(ConfigSchema.KEEPER_STORE_URL.path()));
    storeUrl.ifPresent(url -> checkStoreUrl(file, url));
    StoreSettings store =
        new StoreSettings(
            string(values, ConfigSchema.KEEPER_STORE_URL),
            string(values, ConfigSchema.KEEPER_STORE_USER),
            string(values, ConfigSchema.KEEPER_STORE_PASSWORD).map(Secret::of));
    OptimizerSettings optimizer = optimizer(file, values);
    MaintenanceIntervals maintenance =
        new MaintenanceIntervals(
            duration(values, ConfigSchema.KEEPER_MAINTENANCE_EXPIRE_INTERVAL)
                .orElse(MaintenanceIntervals.DEFAULT_EXPIRE),
            duration(values, ConfigSchema.KEEPER_MAINTENANCE_METADATA_INTERVAL)
                .orElse(MaintenanceIntervals.DEFAULT_METADATA),
            duration(values, ConfigSchema.KEEPER_MAINTENANCE_ORPHAN_INTERVAL)
                .orElse(MaintenanceIntervals.DEFAULT_ORPHANS));
    @SuppressWarnings("unchecked")
    List<SectionItem> items =
        value(values, ConfigSchema.KEEPER_CATALOGS.path(), List.class)
            .map(list -> (List<SectionItem>) list)
            .orElse(List.of());
    return new KeeperSettings(
        value(values, ConfigSchema.KEEPER_LISTEN.path(), ListenAddress.class)
            .orElse(KeeperSettings.DEFAULT_LISTEN),
        string(values, ConfigSchema.KEEPER_API_TOKEN).map(Secret::of),
        Duration.ofSeconds(
            number(values, ConfigSchema.KEEPER_REFRESH_INTERVAL_SECONDS)
                .orElse(KeeperSettings.DEFAULT_REFRESH_INTERVAL.toSeconds())),
        number(values, ConfigSchema.KEEPER_QUARANTINE_AFTER_FAILURES)
            .map(Long::intValue)
            .orElse(KeeperSettings.DEFAULT_QUARANTINE_AFTER_FAILURES),
        duration(values, ConfigSchema.KEEPER_TASK_TIMEOUT)
            .orElse(KeeperSettings.DEFAULT_TASK_TIMEOUT),
        duration(values, ConfigSchema.KEEPER_HISTORY_RETENTION)
            .orElse(KeeperSettings.DEFAULT_HISTORY_RETENTION),
        list(values, ConfigSchema.KEEPER_INCLUDE.path()),
        list(values, ConfigSchema.KEEPER_EXCLUDE.path()),
        store,
        optimizer,
        maintenance,
        keeperCatalogs(file, items, topCatalog),
        alerts(file, values),
        string(values, ConfigSchema.KEEPER_URL),
        verifications(file, values));
  }

  private static final Pattern VERIFICATION_LENGTH = Pattern.compile("[1-9][0-9]{0,5}[dhm]");
  private static final Pattern VERIFICATION_AT = Pattern.compile("([01][0-9]|2[0-3]):[0-5][0-9]");

  /**
   * The {@code keeper.verifications} items: a unique name, a source (the item's or {@code
   * source.url}) with its password, the tables, window, cutoff, daily time and time zone each in
   * the shape {@code floe verify} takes.
   */
  private static List<VerificationSettings> verifications(Path file, Map<String, Located> values) {
    @SuppressWarnings("unchecked")
    List<SectionItem> items =
        value(values, ConfigSchema.KEEPER_VERIFICATIONS.path(), List.class)
            .map(list -> (List<SectionItem>) list)
            .orElse(List.of());
    List<VerificationSettings> verifications = new ArrayList<>();
    Map<String, String> itemByName = new HashMap<>();
    for (SectionItem item : items) {
      verifications.add(verification(file, item, itemByName, values));
    }
    return List.copyOf(verifications);
  }

  private static VerificationSettings verification(
      Path file, SectionItem item, Map<String, String> itemByName, Map<String, Located> top) {
    Map<String, Located> values = item.values();
    String name =
        required(
            file, item, ConfigSchema.VERIFICATION_NAME, "the API and the alerts name it", "orders");
    Located nameValue = values.get(ConfigSchema.VERIFICATION_NAME.name());
    if (!WorkerGroupSettings.NAME.matcher(name).matches()) {
      throw FloeException.badInput(
          where(file, nameValue.line())
              + item.path()
              + ".name must be 1 to 64 letters, digits, '-' or '_', starting with a letter or"
              + " digit, got '"
              + name
              + "'. Rename the verification, e.g. name: orders.");
    }
    String earlier = itemByName.putIfAbsent(name.toLowerCase(Locale.ROOT), item.path());
    if (earlier != null) {
      throw FloeException.badInput(
          where(file, nameValue.line())
              + item.path()
              + ".name '"
              + name
              + "' is the name of "
              + earlier
              + " too (names are compared ignoring case). Give each verification a name of its"
              + " own.");
    }
    Optional<Located> sourceValue =
        Optional.ofNullable(values.get(ConfigSchema.VERIFICATION_SOURCE.name()));
    String sourceName =
        sourceValue.isPresent() ? item.path() + ".source" : ConfigSchema.SOURCE_URL.path();
    Located url =
        sourceValue
            .or(() -> Optional.ofNullable(top.get(ConfigSchema.SOURCE_URL.path())))
            .orElseThrow(
                () ->
                    FloeException.badInput(
                        where(file, item.line())
                            + item.path()
                            + ".source is required when source.url is not set: the MySQL"
                            + " source to verify. Add it, e.g. source: "
                            + MySqlSourceAddress.EXAMPLE
                            + "."));
    MySqlSourceAddress source;
    try {
      source = MySqlSourceAddress.parse((String) url.value(), sourceName);
    } catch (FloeException e) {
      throw FloeException.badInput(where(file, url.line()) + e.getMessage());
    }
    if (source.password().isEmpty()) {
      Optional<Secret> password =
          Optional.ofNullable(values.get(ConfigSchema.VERIFICATION_PASSWORD.name()))
              .or(() -> Optional.ofNullable(top.get(ConfigSchema.SOURCE_PASSWORD.path())))
              .map(located -> Secret.of((String) located.value()));
      source = password.map(source::withPassword).orElse(source);
    }
    String table =
        required(file, item, ConfigSchema.VERIFICATION_TABLE, "the MySQL table", "shop.orders");
    if (!table.matches("[^.\\s]+\\.[^.\\s]+")) {
      throw invalidItemValue(
          file,
          values.get(ConfigSchema.VERIFICATION_TABLE.name()),
          item,
          "table",
          table,
          "DATABASE.TABLE, e.g. table: shop.orders");
    }
    Optional<String> target =
        Optional.ofNullable(values.get(ConfigSchema.VERIFICATION_TARGET.name()))
            .map(located -> (String) located.value());
    if (target.isPresent()
        && (!target.get().contains(".")
            || target.get().startsWith(".")
            || target.get().endsWith("."))) {
      throw invalidItemValue(
          file,
          values.get(ConfigSchema.VERIFICATION_TARGET.name()),
          item,
          "target",
          target.get(),
          "NAMESPACE.TABLE, e.g. target: ods.orders");
    }
    String timeColumn =
        required(
            file,
            item,
            ConfigSchema.VERIFICATION_TIME_COLUMN,
            "the column set on every insert and update",
            "updated_at");
    String window =
        itemString(values, ConfigSchema.VERIFICATION_WINDOW, VerificationSettings.DEFAULT_WINDOW);
    if (!VERIFICATION_LENGTH.matcher(window).matches()) {
      throw invalidItemValue(
          file,
          values.get(ConfigSchema.VERIFICATION_WINDOW.name()),
          item,
          "window",
          window,
          "a length like 7d, 36h or 90m");
    }
    String cutoff =
        itemString(values, ConfigSchema.VERIFICATION_CUTOFF, VerificationSettings.DEFAULT_CUTOFF);
    if (!validCutoff(cutoff)) {
      throw invalidItemValue(
          file,
          values.get(ConfigSchema.VERIFICATION_CUTOFF.name()),
          item,
          "cutoff",
          cutoff,
          "today, a date (2026-11-29) or an ISO date-time (2026-11-29T06:00)");
    }
    String at = itemString(values, ConfigSchema.VERIFICATION_AT, "00:30");
    if (!VERIFICATION_AT.matcher(at).matches()) {
      throw invalidItemValue(
          file,
          values.get(ConfigSchema.VERIFICATION_AT.name()),
          item,
          "at",
          at,
          "a time of day HH:MM from 00:00 to 23:59, quoted, e.g. at: \"00:30\"");
    }
    String zoneText = itemString(values, ConfigSchema.VERIFICATION_TIME_ZONE, "");
    Optional<ZoneId> zone = Optional.empty();
    try {
      if (!zoneText.isEmpty()) {
        zone = Optional.of(ZoneId.of(zoneText));
      }
    } catch (DateTimeException e) {
      throw invalidItemValue(
          file,
          values.get(ConfigSchema.VERIFICATION_TIME_ZONE.name()),
          item,
          "time-zone",
          zoneText,
          "an IANA time zone such as Asia/Shanghai, Europe/Berlin or UTC");
    }
    return new VerificationSettings(
        name, source, table, target, timeColumn, window, cutoff, LocalTime.parse(at), zone);
  }

  private static boolean validCutoff(String text) {
    if (text.equalsIgnoreCase("today")) {
      return true;
    }
    try {
      if (text.length() == 10) {
        LocalDate.parse(text);
      } else {
        LocalDateTime.parse(text.replace(' ', 'T'));
      }
      return true;
    } catch (DateTimeParseException e) {
      return false;
    }
  }

  private static String required(
      Path file, SectionItem item, ConfigKey key, String what, String example) {
    Optional<String> value =
        Optional.ofNullable(item.values().get(key.name()))
            .map(located -> ((String) located.value()).trim())
            .filter(text -> !text.isEmpty());
    if (value.isEmpty()) {
      throw FloeException.badInput(
          where(file, item.line())
              + item.path()
              + "."
              + key.name()
              + " is required: "
              + what
              + ". Add it, e.g. "
              + key.name()
              + ": "
              + example
              + ".");
    }
    return value.get();
  }

  private static String itemString(Map<String, Located> values, ConfigKey key, String orElse) {
    return Optional.ofNullable(values.get(key.name()))
        .map(located -> ((String) located.value()).trim())
        .orElse(orElse);
  }

  private static FloeException invalidItemValue(
      Path file, Located located, SectionItem item, String key, String value, String fix) {
    return FloeException.badInput(
        where(file, located.line())
            + item.path()
            + "."
            + key
            + " must be "
            + fix
            + ", got '"
            + value
            + "'.");
  }

  /**
   * The {@code keeper.alerts} section: rule thresholds within their ranges, channels each with a
   * unique name and the keys their type takes, http(s) URLs, an smtp section when a channel sends
   * e-mail.
   */
  private static AlertSettings alerts(Path file, Map<String, Located> values) {
    Map<AlertRule, AlertRuleSettings> rules = new java.util.EnumMap<>(AlertRule.class);
    for (AlertRule rule : AlertRule.values()) {
      boolean enabled =
          value(values, ConfigSchema.alertRulePath(rule, "enabled"), String.class)
              .map(Boolean::parseBoolean)
              .orElse(true);
      Map<String, Long> thresholds = new LinkedHashMap<>();
      for (AlertThreshold threshold : rule.thresholds()) {
        String path = ConfigSchema.alertRulePath(rule, threshold.key());
        Located located = values.get(path);
        if (located == null) {
          continue;
        }
        long value =
            located.value() instanceof Duration duration
                ? duration.toMillis()
                : (Long) located.value();
        if (value < threshold.minimum() || value > threshold.maximum()) {
          throw FloeException.badInput(
              where(file, located.line())
                  + path
                  + " must be "
                  + threshold.range()
                  + ", got "
                  + (located.value() instanceof Duration duration
                      ? DurationText.format(duration)
                      : Long.toString(value))
                  + ". Write a value in that range, or leave it out for the default ("
                  + threshold.defaultText()
                  + ").");
        }
        thresholds.put(threshold.key(), value);
      }
      rules.put(rule, new AlertRuleSettings(rule, enabled, thresholds));
    }
    Optional<Located> linkBase =
        Optional.ofNullable(values.get(ConfigSchema.KEEPER_ALERTS_LINK_BASE.path()));
    linkBase.ifPresent(
        located -> httpUrl(file, located, ConfigSchema.KEEPER_ALERTS_LINK_BASE.path()));
    Optional<SmtpSettings> smtp = smtp(file, values);
    @SuppressWarnings("unchecked")
    List<SectionItem> items =
        value(values, ConfigSchema.KEEPER_ALERTS_CHANNELS.path(), List.class)
            .map(list -> (List<SectionItem>) list)
            .orElse(List.of());
    List<AlertChannelSettings> channels = new ArrayList<>();
    Map<String, String> itemByName = new HashMap<>();
    for (SectionItem item : items) {
      channels.add(channel(file, item, itemByName, smtp));
    }
    return new AlertSettings(
        duration(values, ConfigSchema.KEEPER_ALERTS_RE_NOTIFY)
            .orElse(AlertSettings.DEFAULT_RE_NOTIFY),
        linkBase.map(located -> ((String) located.value()).replaceAll("/+$", "")),
        rules,
        channels,
        smtp);
  }

  private static Optional<SmtpSettings> smtp(Path file, Map<String, Located> values) {
    Optional<String> host = string(values, ConfigSchema.KEEPER_ALERTS_SMTP_HOST);
    Map<String, Located> section = under(values, "keeper.alerts.smtp");
    if (host.isEmpty()) {
      if (!section.isEmpty()) {
        throw FloeException.badInput(
            where(file, section.values().iterator().next().line())
                + ConfigSchema.KEEPER_ALERTS_SMTP_HOST.path()
                + " is required when keeper.alerts.smtp is given. Add the mail server's host,"
                + " e.g. host: smtp.example.com, or remove the section.");
      }
      return Optional.empty();
    }
    Optional<String> from = string(values, ConfigSchema.KEEPER_ALERTS_SMTP_FROM);
    if (from.isEmpty() || from.get().isBlank()) {
      throw FloeException.badInput(
          where(file, values.get(ConfigSchema.KEEPER_ALERTS_SMTP_HOST.path()).line())
              + ConfigSchema.KEEPER_ALERTS_SMTP_FROM.path()
              + " is required with keeper.alerts.smtp.host: the sender of alert mail. Add it,"
              + " e.g. from: floe@example.com.");
    }
    Optional<Located> port =
        Optional.ofNullable(values.get(ConfigSchema.KEEPER_ALERTS_SMTP_PORT.path()));
    if (port.isPresent() && (Long) port.get().value() > 65535) {
      throw FloeException.badInput(
          where(file, port.get().line())
              + ConfigSchema.KEEPER_ALERTS_SMTP_PORT.path()
              + " must be a port from 1 to 65535, got "
              + port.get().value()
              + ". Write the SMTP server's port, e.g. 587.");
    }
    return Optional.of(
        new SmtpSettings(
            host.get().trim(),
            port.map(located -> ((Long) located.value()).intValue())
                .orElse(SmtpSettings.DEFAULT_PORT),
            string(values, ConfigSchema.KEEPER_ALERTS_SMTP_USER),
            string(values, ConfigSchema.KEEPER_ALERTS_SMTP_PASSWORD).map(Secret::of),
            from.get().trim(),
            string(values, ConfigSchema.KEEPER_ALERTS_SMTP_STARTTLS)
                .map(Boolean::parseBoolean)
                .orElse(true)));
  }

  private static AlertChannelSettings channel(
      Path file, SectionItem item, Map<String, String> itemByName, Optional<SmtpSettings> smtp) {
    Map<String, Located> values = item.values();
    Optional<Located> nameValue =
        Optional.ofNullable(values.get(ConfigSchema.CHANNEL_NAME.name()))
            .filter(located -> !((String) located.value()).isBlank());
    if (nameValue.isEmpty()) {
      throw FloeException.badInput(
          where(file, item.line())
              + item.path()
              + ".name is required: the API and the pages name channels by it. Add it, e.g."
              + " name: ops.");
    }
    String name = (String) nameValue.get().value();
    if (!WorkerGroupSettings.NAME.matcher(name).matches()) {
      throw FloeException.badInput(
          where(file, nameValue.get().line())
              + item.path()
              + ".name must be 1 to 64 letters, digits, '-' or '_', starting with a letter or"
              + " digit, got '"
              + name
              + "'. Rename the channel, e.g. name: ops.");
    }
    String earlier = itemByName.putIfAbsent(name.toLowerCase(Locale.ROOT), item.path());
    if (earlier != null) {
      throw FloeException.badInput(
          where(file, nameValue.get().line())
              + item.path()
              + ".name '"
              + name
              + "' is the name of "
              + earlier
              + " too (names are compared ignoring case). Give each channel a name of its own.");
    }
    Located typeValue = values.get(ConfigSchema.CHANNEL_TYPE.name());
    if (typeValue == null) {
      throw FloeException.badInput(
          where(file, item.line())
              + item.path()
              + ".type is required. Add it: "
              + String.join(", ", ConfigSchema.CHANNEL_TYPE.allowed())
              + ".");
    }
    AlertChannelType type =
        AlertChannelType.valueOf(((String) typeValue.value()).toUpperCase(Locale.ROOT));
    Optional<Located> url = Optional.ofNullable(values.get(ConfigSchema.CHANNEL_URL.name()));
    Optional<Located> secret = Optional.ofNullable(values.get(ConfigSchema.CHANNEL_SECRET.name()));
    Optional<Located> to = Optional.ofNullable(values.get(ConfigSchema.CHANNEL_TO.name()));
    if (type.takesUrl() && url.isEmpty()) {
      throw FloeException.badInput(
          where(file, typeValue.line())
              + item.path()
              + ".url is required for type "
              + type.configName()
              + ": the incoming webhook's http(s) URL. Add it, e.g. url:"
              + " https://hooks.example/floe.");
    }
    if (!type.takesUrl()) {
      if (url.isPresent()) {
        throw notForType(file, url.get(), item, "url", type);
      }
      if (to.isEmpty() || ((List<?>) to.get().value()).isEmpty()) {
        throw FloeException.badInput(
            where(file, typeValue.line())
                + item.path()
                + ".to is required for type email: the recipients. Add it, e.g. to:"
                + " [ops@example.com].");
      }
      if (smtp.isEmpty()) {
        throw FloeException.badInput(
            where(file, typeValue.line())
                + item.path()
                + " is of type email, and keeper.alerts.smtp.host is not set. Add the mail"
                + " server under keeper.alerts.smtp (host, port, user, password, from,"
                + " starttls).");
      }
    } else if (to.isPresent()) {
      throw notForType(file, to.get(), item, "to", type);
    }
    if (secret.isPresent() && !type.takesSecret()) {
      throw notForType(file, secret.get(), item, "secret", type);
    }
    return new AlertChannelSettings(
        name,
        type,
        url.map(located -> httpUrl(file, located, item.path() + ".url")),
        secret.map(located -> Secret.of((String) located.value())),
        to.map(located -> list(values, ConfigSchema.CHANNEL_TO.name())).orElse(List.of()));
  }

  private static FloeException notForType(
      Path file, Located located, SectionItem item, String key, AlertChannelType type) {
    String types =
        Arrays.stream(AlertChannelType.values())
            .filter(
                candidate ->
                    switch (key) {
                      case "url" -> candidate.takesUrl();
                      case "to" -> !candidate.takesUrl();
                      default -> candidate.takesSecret();
                    })
            .map(AlertChannelType::configName)
            .collect(Collectors.joining(", "));
    return FloeException.badInput(
        where(file, located.line())
            + item.path()
            + "."
            + key
            + " is only for channels of type "
            + types
            + ", and this one is of type "
            + type.configName()
            + ". Remove it.");
  }

  /** An absolute http(s) URL with a host; the message shows no query (it may hold a token). */
  private static URI httpUrl(Path file, Located located, String path) {
    String text = ((String) located.value()).trim();
    URI uri;
    try {
      uri = new URI(text);
    } catch (java.net.URISyntaxException e) {
      uri = null;
    }
    if (uri == null
        || uri.getScheme() == null
        || !(uri.getScheme().equalsIgnoreCase("http") || uri.getScheme().equalsIgnoreCase("https"))
        || uri.getHost() == null) {
      int query = text.indexOf('?');
      throw FloeException.badInput(
          where(file, located.line())
              + path
              + " must be an http:// or https:// URL with a host, got '"
              + (query < 0 ? text : text.substring(0, query) + "?...")
              + "'. Write e.g. https://hooks.example/floe.");
    }
    return uri;
  }

  private static void checkStoreUrl(Path file, Located url) {
    String text = (String) url.value();
    if (StoreSettings.URL_PREFIXES.stream().noneMatch(text::startsWith)) {
      throw FloeException.badInput(
          where(file, url.line())
              + ConfigSchema.KEEPER_STORE_URL.path()
              + " must be a jdbc:sqlite: or jdbc:postgresql: URL, got '"
              + StoreSettings.maskPassword(text)
              + "'. Write e.g. jdbc:postgresql://host:5432/floe, or leave it out to keep the"
              + " keeper's state in <data-dir>/"
              + StoreSettings.DEFAULT_FILE_NAME
              + ".");
    }
  }

  /**
   * The items of {@code keeper.catalogs}, each validated as the top-level catalog is, with a name
   * and a type of its own: no embedded catalog, no name twice (ignoring case, as SQL engines do).
   */
  private static List<KeeperCatalog> keeperCatalogs(
      Path file, List<SectionItem> items, CatalogSettings topCatalog) {
    Map<String, String> itemByName = new HashMap<>();
    List<KeeperCatalog> catalogs = new ArrayList<>();
    for (SectionItem item : items) {
      Map<String, Located> values = item.values();
      Optional<Located> name =
          Optional.ofNullable(values.get(ConfigSchema.CATALOG_NAME.name()))
              .filter(located -> !((String) located.value()).isBlank());
      if (name.isEmpty()) {
        throw FloeException.badInput(
            where(file, item.line())
                + item.path()
                + ".name is required: each catalog the keeper maintains needs a name of its own."
                + " Add it, e.g. name: prod.");
      }
      Located type = values.get(ConfigSchema.CATALOG_TYPE.name());
      if (type == null) {
        throw FloeException.badInput(
            where(file, item.line())
                + item.path()
                + ".type is required. Add it: jdbc, rest or hadoop.");
      }
      if (type.value().equals(CatalogType.EMBEDDED.configName())) {
        throw FloeException.badInput(
            where(file, type.line())
                + item.path()
                + ".type cannot be embedded: the embedded catalog can only be the top-level"
                + " catalog section. Use jdbc, rest or hadoop.");
      }
      String catalogName = (String) name.get().value();
      if (catalogName.equalsIgnoreCase(topCatalog.name())) {
        throw FloeException.badInput(
            where(file, name.get().line())
                + item.path()
                + ".name '"
                + catalogName
                + "' is the name of the top-level catalog (catalog.name). Give each catalog a"
                + " name of its own.");
      }
      String earlier = itemByName.putIfAbsent(catalogName.toLowerCase(Locale.ROOT), item.path());
      if (earlier != null) {
        throw FloeException.badInput(
            where(file, name.get().line())
                + item.path()
                + ".name '"
                + catalogName
                + "' is the name of "
                + earlier
                + " too. Give each catalog a name of its own.");
      }
      catalogs.add(
          new KeeperCatalog(
              catalog(file, item.path(), values, item.line()),
              list(values, ConfigSchema.KEEPER_INCLUDE.name()),
              list(values, ConfigSchema.KEEPER_EXCLUDE.name())));
    }
    return List.copyOf(catalogs);
  }

  /**
   * The {@code keeper.optimizer} section: with groups listed, {@code threads} is refused (a threads
   * group's size is its target) and {@code default-group} must name one of them.
   */
  private static OptimizerSettings optimizer(Path file, Map<String, Located> values) {
    @SuppressWarnings("unchecked")
    List<SectionItem> items =
        value(values, ConfigSchema.KEEPER_OPTIMIZER_GROUPS.path(), List.class)
            .map(list -> (List<SectionItem>) list)
            .orElse(List.of());
    Optional<Located> threads =
        Optional.ofNullable(values.get(ConfigSchema.KEEPER_OPTIMIZER_THREADS.path()));
    if (!items.isEmpty() && threads.isPresent()) {
      throw FloeException.badInput(
          where(file, threads.get().line())
              + ConfigSchema.KEEPER_OPTIMIZER_THREADS.path()
              + " is not used when "
              + ConfigSchema.KEEPER_OPTIMIZER_GROUPS.path()
              + " lists groups: threads inside floe serve are then a group of kind threads, sized"
              + " by its target. Remove it, or replace it with such a group, e.g. - { name: serve,"
              + " kind: threads, target: "
              + threads.get().value()
              + " }.");
    }
    List<WorkerGroupSettings> groups = workerGroups(file, items);
    int threadCount =
        threads
            .map(located -> ((Long) located.value()).intValue())
            .orElseGet(OptimizerSettings::defaultThreads);
    Optional<Located> defaultGroup =
        Optional.ofNullable(values.get(ConfigSchema.KEEPER_OPTIMIZER_DEFAULT_GROUP.path()));
    defaultGroup.ifPresent(located -> checkDefaultGroup(file, located, groups));
    return new OptimizerSettings(
        threadCount,
        value(values, ConfigSchema.KEEPER_OPTIMIZER_TABLE_SHARE.path(), Double.class)
            .orElse(OptimizerSettings.DEFAULT_TABLE_SHARE),
        duration(values, ConfigSchema.KEEPER_OPTIMIZER_LEASE_TIMEOUT)
            .orElse(OptimizerSettings.DEFAULT_LEASE_TIMEOUT),
        groups,
        defaultGroup.map(located -> (String) located.value()),
        duration(values, ConfigSchema.KEEPER_OPTIMIZER_CAPACITY_GRACE)
            .orElse(OptimizerSettings.DEFAULT_CAPACITY_GRACE));
  }

  /**
   * The items of {@code keeper.optimizer.groups}: each with a name (unique ignoring case, as tables
   * name it in floe.keeper.group), a kind and a target, and only the keys its kind takes; at most
   * one group of kind threads, since such groups would share floe serve's JVM.
   */
  private static List<WorkerGroupSettings> workerGroups(Path file, List<SectionItem> items) {
    Map<String, String> itemByName = new HashMap<>();
    Optional<SectionItem> threadsGroup = Optional.empty();
    List<WorkerGroupSettings> groups = new ArrayList<>();
    for (SectionItem item : items) {
      Map<String, Located> values = item.values();
      String name = groupName(file, item);
      String earlier = itemByName.putIfAbsent(name.toLowerCase(Locale.ROOT), item.path());
      if (earlier != null) {
        throw FloeException.badInput(
            where(file, values.get(ConfigSchema.GROUP_NAME.name()).line())
                + item.path()
                + ".name '"
                + name
                + "' is the name of "
                + earlier
                + " too (names are compared ignoring case). Give each group a name of its own.");
      }
      Located kindValue = values.get(ConfigSchema.GROUP_KIND.name());
      if (kindValue == null) {
        throw FloeException.badInput(
            where(file, item.line())
                + item.path()
                + ".kind is required. Add it: "
                + String.join(", ", ConfigSchema.GROUP_KIND.allowed())
                + ".");
      }
      WorkerGroupKind kind =
          WorkerGroupKind.valueOf(((String) kindValue.value()).toUpperCase(Locale.ROOT));
      Located target = values.get(ConfigSchema.GROUP_TARGET.name());
      if (target == null) {
        throw FloeException.badInput(
            where(file, item.line())
                + item.path()
                + ".target is required: the "
                + (kind == WorkerGroupKind.THREADS ? "threads" : "workers")
                + " the keeper keeps group '"
                + name
                + "' at. Add it, e.g. target: 2.");
      }
      checkKeyOfKind(
          file,
          item,
          name,
          kind,
          ConfigSchema.GROUP_THREADS_PER_WORKER,
          WorkerGroupKind::takesThreadsPerWorker);
      checkKeyOfKind(file, item, name, kind, ConfigSchema.GROUP_HEAP, WorkerGroupKind::takesHeap);
      checkKeyOfKind(file, item, name, kind, ConfigSchema.GROUP_JAVA, WorkerGroupKind::takesHeap);
      checkKeyOfKind(
          file, item, name, kind, ConfigSchema.GROUP_FLINK, WorkerGroupKind::takesFlinkAddress);
      if (kind.takesFlinkAddress() && !values.containsKey(ConfigSchema.GROUP_FLINK.name())) {
        throw FloeException.badInput(
            where(file, kindValue.line())
                + item.path()
                + ".flink is required when "
                + item.path()
                + ".kind is flink. Add the REST address of the Flink cluster's JobManager"
                + " (its rest.port, 8081 by default) under "
                + item.path()
                + ", e.g. flink: flink-jm:8081.");
      }
      if (kind == WorkerGroupKind.THREADS) {
        if (threadsGroup.isPresent()) {
          throw FloeException.badInput(
              where(file, kindValue.line())
                  + item.path()
                  + " is a second group of kind threads, beside "
                  + threadsGroup.get().path()
                  + ": threads groups all run in floe serve's one JVM, so there is at most one."
                  + " Make them one group whose target is the sum of theirs.");
        }
        threadsGroup = Optional.of(item);
      }
      int threadsPerWorker =
          value(values, ConfigSchema.GROUP_THREADS_PER_WORKER.name(), Long.class)
              .map(Long::intValue)
              .orElse(WorkerGroupSettings.DEFAULT_THREADS_PER_WORKER);
      groups.add(
          new WorkerGroupSettings(
              name,
              kind,
              ((Long) target.value()).intValue(),
              threadsPerWorker,
              kind.takesHeap()
                  ? Optional.of(
                      value(values, ConfigSchema.GROUP_HEAP.name(), Long.class)
                          .orElse(WorkerGroupSettings.defaultHeapBytes(threadsPerWorker)))
                  : Optional.empty(),
              value(values, ConfigSchema.GROUP_FLINK.name(), URI.class),
              value(values, ConfigSchema.GROUP_JAVA.name(), String.class)
                  .map(String::trim)
                  .filter(java -> !java.isEmpty())));
    }
    return List.copyOf(groups);
  }

  private static String groupName(Path file, SectionItem item) {
    Optional<Located> name =
        Optional.ofNullable(item.values().get(ConfigSchema.GROUP_NAME.name()))
            .filter(located -> !((String) located.value()).isBlank());
    if (name.isEmpty()) {
      throw FloeException.badInput(
          where(file, item.line())
              + item.path()
              + ".name is required: tables pick their group by its name (floe.keeper.group)."
              + " Add it, e.g. name: local.");
    }
    String text = (String) name.get().value();
    if (!WorkerGroupSettings.NAME.matcher(text).matches()) {
      throw FloeException.badInput(
          where(file, name.get().line())
              + item.path()
              + ".name must be 1 to 64 letters, digits, '-' or '_', starting with a letter or"
              + " digit, got '"
              + text
              + "'. Rename the group, e.g. name: local.");
    }
    return text;
  }

  /** Refuses a key of a group item that its kind does not take. */
  private static void checkKeyOfKind(
      Path file,
      SectionItem item,
      String name,
      WorkerGroupKind kind,
      ConfigKey key,
      Predicate<WorkerGroupKind> takes) {
    Located located = item.values().get(key.name());
    if (located != null && !takes.test(kind)) {
      String kinds =
          Arrays.stream(WorkerGroupKind.values())
              .filter(takes)
              .map(WorkerGroupKind::configName)
              .collect(Collectors.joining(" or "));
      throw FloeException.badInput(
          where(file, located.line())
              + item.path()
              + "."
              + key.name()
              + " is only for groups of kind "
              + kinds
              + ", and group '"
              + name
              + "' is of kind "
              + kind.configName()
              + ". Remove it.");
    }
  }

  private static void checkDefaultGroup(
      Path file, Located defaultGroup, List<WorkerGroupSettings> groups) {
    String name = (String) defaultGroup.value();
    String path = ConfigSchema.KEEPER_OPTIMIZER_DEFAULT_GROUP.path();
    if (groups.isEmpty()) {
      if (!name.equalsIgnoreCase(OptimizerSettings.DEFAULT_GROUP_NAME)) {
        throw FloeException.badInput(
            where(file, defaultGroup.line())
                + path
                + " '"
                + name
                + "' names no group: "
                + ConfigSchema.KEEPER_OPTIMIZER_GROUPS.path()
                + " lists none, so the one group is '"
                + OptimizerSettings.DEFAULT_GROUP_NAME
                + "' (keeper.optimizer.threads threads). List the group under "
                + ConfigSchema.KEEPER_OPTIMIZER_GROUPS.path()
                + ", or leave "
                + path
                + " out.");
      }
      return;
    }
    if (groups.stream().noneMatch(group -> group.name().equalsIgnoreCase(name))) {
      throw FloeException.badInput(
          where(file, defaultGroup.line())
              + path
              + " '"
              + name
              + "' names no group of "
              + ConfigSchema.KEEPER_OPTIMIZER_GROUPS.path()
              + ", which lists "
              + groups.stream().map(WorkerGroupSettings::name).collect(Collectors.joining(", "))
              + ". Name one of them, or leave "
              + path
              + " out for the first ("
              + groups.get(0).name()
              + ").");
    }
  }

  /** A URL's query may carry a password; messages show what comes before it. */
  private static String withoutQuery(String url) {
    int query = url.indexOf('?');
    return query < 0 ? url : url.substring(0, query);
  }

  private static String exampleUri(CatalogType type) {
    return switch (type) {
      case JDBC -> "jdbc:postgresql://host:5432/iceberg";
      case REST -> "http://host:8181";
      default -> "";
    };
  }

  /** The values under a section, by the rest of their path ({@code type} for catalog.type). */
  private static Map<String, Located> under(Map<String, Located> values, String section) {
    Map<String, Located> result = new LinkedHashMap<>();
    String prefix = section + ".";
    values.forEach(
        (path, located) -> {
          if (path.startsWith(prefix)) {
            result.put(path.substring(prefix.length()), located);
          }
        });
    return result;
  }

  private static <T> Optional<T> value(Map<String, Located> values, String path, Class<T> type) {
    return Optional.ofNullable(values.get(path)).map(located -> type.cast(located.value()));
  }

  private static List<String> list(Map<String, Located> values, ConfigKey key) {
    return list(values, key.path());
  }

  @SuppressWarnings("unchecked")
  private static List<String> list(Map<String, Located> values, String path) {
    return value(values, path, List.class).map(list -> (List<String>) list).orElse(List.of());
  }

  private static Optional<Long> number(Map<String, Located> values, ConfigKey key) {
    return value(values, key.path(), Long.class);
  }

  private static Optional<String> string(Map<String, Located> values, ConfigKey key) {
    return value(values, key.path(), String.class);
  }

  private static Optional<Duration> duration(Map<String, Located> values, ConfigKey key) {
    return value(values, key.path(), Duration.class);
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
