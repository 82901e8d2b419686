package dev.floe.sync;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** JSON reading shared by the Kafka decoders. Thread-safe. */
final class KafkaJson {

  /** Decimals stay exact: a JSON number is read as BigDecimal, never through a double. */
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private KafkaJson() {}

  /** The JSON document of the bytes, or empty when they are not JSON. */
  static Optional<JsonNode> parse(byte[] bytes) {
    try {
      JsonNode node = JSON.readTree(bytes);
      return node == null || node.isMissingNode() ? Optional.empty() : Optional.of(node);
    } catch (JsonProcessingException notJson) {
      return Optional.empty();
    } catch (IOException unreadable) {
      return Optional.empty();
    }
  }

  /** The reason for a value that is not a JSON object of the format. */
  static String notJson(byte[] value, String format) {
    String text = new String(value, StandardCharsets.UTF_8);
    try {
      JSON.readTree(value);
      return "the value is not a "
          + format
          + " message (not a JSON object): "
          + KafkaValues.abbreviated(text);
    } catch (IOException e) {
      return "the value is not JSON ("
          + e.getMessage().lines().findFirst().orElse("")
          + "): "
          + KafkaValues.abbreviated(text);
    }
  }

  /** The first of the fields that is missing or empty text, if any. */
  static Optional<String> missingText(JsonNode message, String... fields) {
    for (String field : fields) {
      JsonNode node = message.get(field);
      if (node == null || !node.isTextual() || node.asText().isEmpty()) {
        return Optional.of(field);
      }
    }
    return Optional.empty();
  }
}
