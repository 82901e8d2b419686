package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.List;

/**
 * A compared row from one side: its column texts (table order, null = SQL NULL) and whether it is
 * in the content window.
 */
public record ComparedRow(List<String> texts, boolean full) {
  public ComparedRow {
    // texts may hold nulls: copy without List.copyOf
    texts = Collections.unmodifiableList(new java.util.ArrayList<>(requireNonNull(texts, "texts")));
  }
}
