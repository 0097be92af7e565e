package dev.gate.batch.history;

import java.io.Serializable;
import java.time.LocalDate;

/** One item of a backfill: a symbol's history for one day. Its text ({@code AAPL/2024-01-02}) fills key templates. */
public record HistoryItem(String symbol, LocalDate day) implements Serializable {

    @Override
    public String toString() {
        return symbol + "/" + day;
    }
}
