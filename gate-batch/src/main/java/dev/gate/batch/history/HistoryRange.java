package dev.gate.batch.history;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The items of a backfill in a fixed order (symbol by symbol, day by day), so that a checkpoint is just the index of
 * the next item: a restart continues exactly where the last committed chunk ended.
 */
public final class HistoryRange {

    /** Items one job may walk: a bound on what one request may ask of the vendor. */
    public static final int MOST_ITEMS = 1_000_000;

    private final List<String> symbols;
    private final LocalDate from;
    private final int days;

    private HistoryRange(List<String> symbols, LocalDate from, int days) {
        this.symbols = symbols;
        this.from = from;
        this.days = days;
    }

    /**
     * From the job's parameters: comma-separated symbols (letters, digits, '.', '-', 1-32 characters, no repeats) and
     * the first and last day, inclusive (ISO dates). A bad one names itself.
     */
    public static HistoryRange parse(String symbols, String from, String to) {
        if (symbols == null || symbols.isBlank()) {
            throw new IllegalArgumentException("symbols is required (comma-separated, e.g. AAPL,MSFT)");
        }
        List<String> list = List.copyOf(new LinkedHashSet<>(Arrays.stream(symbols.split(",")).map(String::trim)
                .filter(s -> !s.isEmpty()).toList()));
        for (String s : list) {
            if (!s.matches("[A-Za-z0-9.-]{1,32}")) {
                throw new IllegalArgumentException("symbols: '" + s + "' is not a symbol (letters, digits, '.', '-', "
                        + "1-32 characters)");
            }
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("symbols is required (comma-separated, e.g. AAPL,MSFT)");
        }
        LocalDate first = date("from", from);
        LocalDate last = date("to", to);
        if (last.isBefore(first)) {
            throw new IllegalArgumentException("to (" + last + ") is before from (" + first + ")");
        }
        long days = ChronoUnit.DAYS.between(first, last) + 1;
        if (days * list.size() > MOST_ITEMS) {
            throw new IllegalArgumentException("symbols x days is " + days * list.size() + " items; at most "
                    + MOST_ITEMS + " per job");
        }
        return new HistoryRange(list, first, (int) days);
    }

    public int size() {
        return symbols.size() * days;
    }

    /** The item at {@code index} (0 .. size-1). */
    public HistoryItem item(int index) {
        if (index < 0 || index >= size()) {
            throw new IndexOutOfBoundsException(index);
        }
        return new HistoryItem(symbols.get(index / days), from.plusDays(index % days));
    }

    private static LocalDate date(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is required (an ISO date, e.g. 2024-01-31)");
        }
        try {
            return LocalDate.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + " must be an ISO date (e.g. 2024-01-31), was '" + value + "'");
        }
    }
}
