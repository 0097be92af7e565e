package dev.gate.batch.history;

import java.io.Serializable;

/** The vendor's answer for one item, as the job keeps it. */
public record HistoryResult(HistoryItem item, int status, String body) implements Serializable {
}
