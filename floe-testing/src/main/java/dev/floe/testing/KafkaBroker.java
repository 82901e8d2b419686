package dev.floe.testing;

import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A private single-node Kafka broker (KRaft: one process is broker and controller) in its own JVM,
 * from Kafka's own jars as Maven resolved them (module {@code floe-testing-kafka-broker} lists them
 * in {@code kafka-broker-classpath.txt}). It runs in a temporary directory on free loopback ports;
 * {@link #close()} stops it and deletes the directory, and a watchdog process does the same when
 * the JVM dies first.
 *
 * <p>The broker's jars never reach the caller's classpath. The helpers ({@link #createTopic},
 * {@link #send}) use the caller's {@code kafka-clients} (any 3.x or 4.x; floe-sync has it through
 * Flink's Kafka connector), which floe-testing declares optional.
 */
public final class KafkaBroker implements AutoCloseable {

  private static final String CLASSPATH_RESOURCE = "kafka-broker-classpath.txt";
  private static final String BROKER_CLASS = "kafka.Kafka";
  private static final String STORAGE_TOOL_CLASS = "kafka.tools.StorageTool";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final int START_ATTEMPTS = 3;

  private final Path directory;
  private final int port;
  private final Process process;
  private final Process watchdog;
  private KafkaProducer<byte[], byte[]> producer;
  private volatile boolean closed;

  private KafkaBroker(Path directory, int port, Process process, Process watchdog) {
    this.directory = directory;
    this.port = port;
    this.process = process;
    this.watchdog = watchdog;
  }

  /**
   * Formats the storage of a new broker and starts it; returns once it answers an admin request.
   *
   * @throws IllegalStateException when it does not start within 90 s; the message holds the tail of
   *     its log
   */
  public static KafkaBroker start() {
    List<Path> classpath = readClasspath();
    Path home;
    try {
      home = Files.createTempDirectory("floe-kafka-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the Kafka broker", e);
    }
    IllegalStateException lastFailure = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        return launch(home, classpath);
      } catch (IllegalStateException failure) {
        lastFailure = failure;
        if (!failure.getMessage().contains("Address already in use")) {
          break;
        }
      }
    }
    ServerProcesses.deleteRecursively(home);
    throw requireNonNull(lastFailure, "no start attempt was made");
  }

  /** The broker shared by all tests of this JVM, started on first use, stopped at JVM exit. */
  public static KafkaBroker shared() {
    return SharedBroker.INSTANCE;
  }

  /** {@code 127.0.0.1:PORT}, what Kafka clients take as {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  public Path directory() {
    return directory;
  }

  public long pid() {
    return process.pid();
  }

  /** Creates a topic with {@code partitions} partitions (replication factor 1). */
  public void createTopic(String topic, int partitions) {
    try (Admin admin = Admin.create(adminProperties())) {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot create topic " + topic + " on " + bootstrapServers() + ": " + e.getMessage(), e);
    }
  }

  /** A message to send: key and value as UTF-8 text (either may be null). */
  public record Message(String key, String value) {
    public static Message of(String key, String value) {
      return new Message(key, value);
    }
  }

  /** Where a sent message landed. */
  public record Sent(String topic, int partition, long offset) {}

  /**
   * Sends the messages in order, keyed (Kafka's default partitioner: a key's messages all go to one
   * partition), and waits until the broker has acknowledged every one (acks=all, idempotent).
   */
  public List<Sent> send(String topic, List<Message> messages) {
    return send(topic, Optional.empty(), messages);
  }

  /** As {@link #send(String, List)}, into one given partition. */
  public List<Sent> sendToPartition(String topic, int partition, List<Message> messages) {
    return send(topic, Optional.of(partition), messages);
  }

  /** Sends raw bytes as key and value (either may be null), e.g. a message that is not UTF-8. */
  public Sent sendBytes(String topic, byte[] key, byte[] value) {
    try {
      RecordMetadata metadata = producer().send(new ProducerRecord<>(topic, key, value)).get();
      return new Sent(metadata.topic(), metadata.partition(), metadata.offset());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending to " + topic, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot send to " + topic + ": " + e.getCause(), e);
    }
  }

  private List<Sent> send(String topic, Optional<Integer> partition, List<Message> messages) {
    List<Future<RecordMetadata>> pending = new ArrayList<>();
    KafkaProducer<byte[], byte[]> producer = producer();
    for (Message message : messages) {
      pending.add(
          producer.send(
              new ProducerRecord<>(
                  topic, partition.orElse(null), bytes(message.key()), bytes(message.value()))));
    }
    producer.flush();
    List<Sent> sent = new ArrayList<>();
    try {
      for (Future<RecordMetadata> future : pending) {
        RecordMetadata metadata = future.get();
        sent.add(new Sent(metadata.topic(), metadata.partition(), metadata.offset()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending to " + topic, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot send to " + topic + ": " + e.getCause(), e);
    }
    return sent;
  }

  private static byte[] bytes(String text) {
    return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
  }

  private synchronized KafkaProducer<byte[], byte[]> producer() {
    if (closed) {
      throw new IllegalStateException("the Kafka broker on port " + port + " is closed");
    }
    if (producer == null) {
      Properties properties = new Properties();
      properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
      properties.put(ProducerConfig.ACKS_CONFIG, "all");
      properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
      properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      producer = new KafkaProducer<>(properties);
    }
    return producer;
  }

  private Properties adminProperties() {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    return properties;
  }

  /** The last lines of the broker's log, for failure messages. */
  public String logTail() {
    return ServerProcesses.tail(directory.resolve("broker.log"), 30)
        + "\n"
        + ServerProcesses.tail(directory.resolve("broker.out"), 30);
  }

  /**
   * Kills the broker with SIGKILL (e.g. to test an unreachable broker); close() still cleans up.
   */
  public void kill() {
    watchdog.destroy();
    process.destroyForcibly();
    try {
      process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the broker (SIGTERM, SIGKILL after 30 s) and deletes its directory. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
    watchdog.destroy();
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    ServerProcesses.deleteRecursively(directory);
  }

  private static KafkaBroker launch(Path home, List<Path> classpath) {
    int port = ServerProcesses.freePort();
    int controllerPort = ServerProcesses.freePort();
    Path data = home.resolve("data");
    ServerProcesses.deleteRecursively(data);
    Path properties = home.resolve("server.properties");
    Path log4j = home.resolve("log4j2.properties");
    try {
      Files.writeString(
          properties,
          String.join(
              "\n",
              "process.roles=broker,controller",
              "node.id=1",
              "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
              "listeners=PLAINTEXT://127.0.0.1:"
                  + port
                  + ",CONTROLLER://127.0.0.1:"
                  + controllerPort,
              "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
              "controller.listener.names=CONTROLLER",
              "inter.broker.listener.name=PLAINTEXT",
              "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
              "log.dirs=" + data,
              "num.partitions=1",
              "auto.create.topics.enable=false",
              "offsets.topic.replication.factor=1",
              "offsets.topic.num.partitions=4",
              "transaction.state.log.replication.factor=1",
              "transaction.state.log.min.isr=1",
              "transaction.state.log.num.partitions=4",
              "share.coordinator.state.topic.replication.factor=1",
              "share.coordinator.state.topic.min.isr=1",
              "group.initial.rebalance.delay.ms=0",
              "num.network.threads=2",
              "num.io.threads=2",
              "log.flush.interval.messages=9223372036854775807",
              ""),
          StandardCharsets.UTF_8);
      Files.writeString(
          log4j,
          String.join(
              "\n",
              "rootLogger.level=INFO",
              "rootLogger.appenderRef.file.ref=file",
              "appender.file.type=File",
              "appender.file.name=file",
              "appender.file.fileName=" + home.resolve("broker.log"),
              "appender.file.layout.type=PatternLayout",
              "appender.file.layout.pattern=%d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
              ""),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the Kafka broker's configuration", e);
    }
    ServerProcesses.run(
        new ProcessBuilder(
            javaCommand(
                classpath,
                log4j,
                STORAGE_TOOL_CLASS,
                List.of("format", "-t", clusterId(), "-c", properties.toString()))),
        home.resolve("format.log"));
    Process process;
    try {
      process =
          new ProcessBuilder(
                  javaCommand(classpath, log4j, BROKER_CLASS, List.of(properties.toString())))
              .directory(home.toFile())
              .redirectErrorStream(true)
              .redirectOutput(home.resolve("broker.out").toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the Kafka broker: " + e.getMessage(), e);
    }
    Process watchdog = ServerProcesses.startWatchdog(process.pid(), "TERM", Optional.of(home));
    KafkaBroker broker = new KafkaBroker(home, port, process, watchdog);
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    Exception lastError = null;
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        watchdog.destroy();
        throw new IllegalStateException(
            "the Kafka broker exited while starting on port "
                + port
                + " (exit code "
                + process.exitValue()
                + "). Its log ends with:\n"
                + broker.logTail());
      }
      try (Admin admin = Admin.create(broker.adminProperties())) {
        admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
        return broker;
      } catch (Exception notYet) {
        lastError = notYet;
      }
      try {
        Thread.sleep(200); // poll interval while the broker starts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    process.destroyForcibly();
    watchdog.destroy();
    throw new IllegalStateException(
        "the Kafka broker did not answer on port "
            + port
            + " within "
            + START_TIMEOUT.toSeconds()
            + " s (last error: "
            + lastError
            + "). Its log ends with:\n"
            + broker.logTail());
  }

  private static List<String> javaCommand(
      List<Path> classpath, Path log4j, String mainClass, List<String> arguments) {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xms64m");
    command.add("-Xmx512m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Djava.awt.headless=true");
    command.add("-Dlog4j2.configurationFile=file:" + log4j);
    command.add("-classpath");
    command.add(String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()));
    command.add(mainClass);
    command.addAll(arguments);
    return command;
  }

  /**
   * A KRaft cluster id: 16 random bytes, URL-safe base64 without padding (Kafka's Uuid text). Never
   * one that begins with '-' (one in 64 would): the storage tool's argument parser takes it for an
   * option and fails with "argument --cluster-id/-t: expected one argument".
   */
  private static String clusterId() {
    while (true) {
      UUID uuid = UUID.randomUUID();
      ByteBuffer bytes = ByteBuffer.allocate(16);
      bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
      String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
      if (!id.startsWith("-")) {
        return id;
      }
    }
  }

  private static List<Path> readClasspath() {
    try (InputStream list = KafkaBroker.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
      if (list == null) {
        throw new IllegalStateException(
            CLASSPATH_RESOURCE
                + " is missing from the classpath: build floe-testing-kafka-broker with Maven"
                + " (it lists the Kafka broker's jars)");
      }
      String text = new String(list.readAllBytes(), StandardCharsets.UTF_8).trim();
      List<Path> classpath = new ArrayList<>();
      for (String entry : text.split(File.pathSeparator)) {
        Path jar = Paths.get(entry);
        if (!Files.isRegularFile(jar)) {
          throw new IllegalStateException(
              "the Kafka broker's jar "
                  + jar
                  + " is missing: build floe-testing-kafka-broker again");
        }
        classpath.add(jar);
      }
      return classpath;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + CLASSPATH_RESOURCE, e);
    }
  }

  /** The shared broker, started on first use, stopped at JVM exit. */
  private static final class SharedBroker {
    static final KafkaBroker INSTANCE = startShared();

    private static KafkaBroker startShared() {
      KafkaBroker broker = start();
      Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "floe-kafka-shutdown"));
      return broker;
    }
  }
}
