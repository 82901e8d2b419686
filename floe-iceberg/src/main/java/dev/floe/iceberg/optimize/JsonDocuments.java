package dev.floe.iceberg.optimize;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.util.JsonUtil;

/**
 * Reading the versioned JSON documents of portable tasks and their results: every problem is an
 * {@link IllegalArgumentException} that names the document and the field.
 */
final class JsonDocuments {

  static final String FORMAT = "format";

  private JsonDocuments() {}

  static JsonNode parse(String json, String document) {
    try {
      JsonNode node = JsonUtil.mapper().readTree(json);
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException(document + " is not a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          document + " is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Checks the document's {@code format}: missing or not a number is refused, and so is a format
   * newer than {@code supported}, with a message that says to run the same Floe on both sides.
   */
  static void checkFormat(JsonNode node, String document, int supported) {
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException(document + " is not a JSON object");
    }
    JsonNode format = node.get(FORMAT);
    if (format == null || !format.isIntegralNumber()) {
      throw new IllegalArgumentException(
          document + " has no \"" + FORMAT + "\" number; this Floe reads format " + supported);
    }
    int value = format.intValue();
    if (value > supported) {
      throw new IllegalArgumentException(
          document
              + " has format "
              + value
              + ", newer than this Floe reads ("
              + supported
              + "); run the same Floe version on the keeper and its workers");
    }
    if (value < 1) {
      throw new IllegalArgumentException(document + " has an unknown format " + value);
    }
  }

  static JsonNode field(JsonNode node, String name, String document) {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      throw new IllegalArgumentException(document + " has no field \"" + name + "\"");
    }
    return value;
  }

  static String text(JsonNode node, String name, String document) {
    JsonNode value = field(node, name, document);
    if (!value.isTextual()) {
      throw invalid(name, value, "a string", document);
    }
    return value.textValue();
  }

  static long longValue(JsonNode node, String name, String document) {
    JsonNode value = field(node, name, document);
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw invalid(name, value, "an integer", document);
    }
    return value.longValue();
  }

  static int intValue(JsonNode node, String name, String document) {
    JsonNode value = field(node, name, document);
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw invalid(name, value, "an integer", document);
    }
    return value.intValue();
  }

  static double doubleValue(JsonNode node, String name, String document) {
    JsonNode value = field(node, name, document);
    if (!value.isNumber()) {
      throw invalid(name, value, "a number", document);
    }
    return value.doubleValue();
  }

  static boolean booleanValue(JsonNode node, String name, String document) {
    JsonNode value = field(node, name, document);
    if (!value.isBoolean()) {
      throw invalid(name, value, "true or false", document);
    }
    return value.booleanValue();
  }

  static JsonNode array(JsonNode node, String name, String document) {
    JsonNode value = field(node, name, document);
    if (!value.isArray()) {
      throw invalid(name, value, "an array", document);
    }
    return value;
  }

  static JsonNode object(JsonNode node, String name, String document) {
    JsonNode value = field(node, name, document);
    if (!value.isObject()) {
      throw invalid(name, value, "an object", document);
    }
    return value;
  }

  private static IllegalArgumentException invalid(
      String name, JsonNode value, String expected, String document) {
    return new IllegalArgumentException(
        document + " field \"" + name + "\" must be " + expected + ", was " + value);
  }
}
