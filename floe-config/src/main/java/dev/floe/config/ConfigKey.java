package dev.floe.config;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * One documented key of {@code floe.yaml}.
 *
 * @param path the dotted path, e.g. {@code catalog.type}
 * @param kind what values it takes
 * @param defaultValue the default as a user would write it; empty when there is none
 * @param description what it does, one or two sentences
 * @param allowed for {@link Kind#CHOICE}, the allowed values
 * @param minimum for {@link Kind#INTEGER}, the smallest allowed value
 * @param secret whether the value must never be printed
 */
public record ConfigKey(
    String path,
    Kind kind,
    Optional<String> defaultValue,
    String description,
    List<String> allowed,
    long minimum,
    boolean secret) {

  /** The kinds of values. */
  public enum Kind {
    STRING("string"),
    INTEGER("integer"),
    CHOICE("one of"),
    PATH("path"),
    MAP("map of string to string"),
    LIST("list of strings");

    private final String description;

    Kind(String description) {
      this.description = description;
    }

    public String description() {
      return description;
    }
  }

  public ConfigKey {
    requireNonNull(path, "path is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(defaultValue, "defaultValue is null");
    requireNonNull(description, "description is null");
    allowed = List.copyOf(requireNonNull(allowed, "allowed is null"));
  }

  /** The section ({@code catalog} for {@code catalog.type}); empty for top-level keys. */
  public String section() {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? "" : path.substring(0, dot);
  }

  /** The last part of the path. */
  public String name() {
    return path.substring(path.lastIndexOf('.') + 1);
  }

  /** How the type reads in the reference and in messages. */
  public String typeDescription() {
    return switch (kind) {
      case CHOICE -> "one of " + String.join(", ", allowed);
      case INTEGER -> "integer >= " + minimum;
      default -> kind.description();
    };
  }
}
