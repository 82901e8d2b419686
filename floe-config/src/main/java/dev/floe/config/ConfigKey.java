package dev.floe.config;

import static java.util.Objects.requireNonNull;

import dev.floe.core.config.SizeText;
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
 * @param minimum for {@link Kind#INTEGER}, the smallest allowed value; for {@link Kind#SIZE}, in
 *     bytes
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
    LIST("list of strings"),
    /** Regular expressions, each checked when the file is read. */
    PATTERNS("list of regular expressions"),
    /** A duration above zero as {@code DurationText} reads it: 30s, 15m, 12h, 3d. */
    DURATION("duration"),
    /** A decimal above 0 and at most 1: a share of something. */
    FRACTION("decimal"),
    /** {@code HOST:PORT}, an IPv6 host in brackets. */
    ADDRESS("HOST:PORT"),
    /** A list of sections shaped like the {@code catalog} section, each with include/exclude. */
    CATALOGS("list of catalog sections"),
    /** A list of worker group sections, each with the keys of {@link ConfigSchema#GROUP_KEYS}. */
    GROUPS("list of worker group sections"),
    /** A memory size as {@code SizeText} reads it (512m, 2g), at least {@code minimum} bytes. */
    SIZE("size"),
    /** {@code HOST:PORT} (http) or {@code http(s)://HOST:PORT} of an HTTP endpoint. */
    HTTP_ADDRESS("HOST:PORT or http(s)://HOST:PORT"),
    /**
     * A list of alert channel sections, each with the keys of {@link ConfigSchema#CHANNEL_KEYS}.
     */
    CHANNELS("list of alert channel sections"),
    /**
     * A list of scheduled verification sections, each with the keys of {@link
     * ConfigSchema#VERIFICATION_KEYS}.
     */
    VERIFICATIONS("list of verification sections"),
    /** A duration as {@link #DURATION} reads it, or 0 for never. */
    DURATION_OR_ZERO("duration or 0");

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

  /** This key's type, default and description at another path (an item of a list of sections). */
  public ConfigKey at(String otherPath) {
    return new ConfigKey(otherPath, kind, defaultValue, description, allowed, minimum, secret);
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
      case DURATION -> "duration (e.g. 30s, 15m, 12h, 3d)";
      case DURATION_OR_ZERO -> "duration (e.g. 30m, 4h), or 0 for never";
      case FRACTION -> "decimal in (0, 1]";
      case SIZE -> "size >= " + SizeText.format(minimum) + " (e.g. 512m, 2g)";
      default -> kind.description();
    };
  }
}
