package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The result of comparing two observations of a table's history.
 *
 * @param status intact, rewound or unverifiable
 * @param lost the snapshots that dropped out of history (rewound only), newest first
 * @param explanation one sentence for people
 */
public record HistoryVerdict(Status status, List<ObservedSnapshot> lost, String explanation) {

  public enum Status {
    /** The previously current snapshot is the current one or an ancestor of it. */
    INTACT,
    /** Committed snapshots dropped out of the table's history. */
    REWOUND,
    /** Expiry removed the evidence: history can be neither proven intact nor rewound. */
    UNVERIFIABLE
  }

  public HistoryVerdict {
    requireNonNull(status, "status is null");
    lost = List.copyOf(requireNonNull(lost, "lost is null"));
    requireNonNull(explanation, "explanation is null");
  }
}
