package dev.gate.batch.history;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HistoryRangeTest {

    @Test
    void everySymbolAndDayIsOneItemInAFixedOrder() {
        HistoryRange r = HistoryRange.parse(" AAPL, MSFT ,AAPL", "2024-01-30", "2024-02-02");
        assertEquals(8, r.size(), "two symbols (a repeat counts once) x four days, both ends included");
        assertEquals(new HistoryItem("AAPL", LocalDate.of(2024, 1, 30)), r.item(0));
        assertEquals(new HistoryItem("AAPL", LocalDate.of(2024, 2, 2)), r.item(3));
        assertEquals(new HistoryItem("MSFT", LocalDate.of(2024, 1, 30)), r.item(4));
        Set<HistoryItem> all = new HashSet<>();
        for (int i = 0; i < r.size(); i++) {
            all.add(r.item(i));
        }
        assertEquals(8, all.size(), "no item twice: a checkpoint (the next index) neither repeats nor skips");
        assertEquals("MSFT/2024-02-02", r.item(7).toString());
        assertThrows(IndexOutOfBoundsException.class, () -> r.item(8));
    }

    @Test
    void badParametersNameThemselves() {
        assertTrue(message(() -> HistoryRange.parse("", "2024-01-01", "2024-01-02")).startsWith("symbols"));
        assertTrue(message(() -> HistoryRange.parse("A B", "2024-01-01", "2024-01-02")).startsWith("symbols"));
        assertTrue(message(() -> HistoryRange.parse("A", "yesterday", "2024-01-02")).startsWith("from"));
        assertTrue(message(() -> HistoryRange.parse("A", "2024-01-01", null)).startsWith("to"));
        assertTrue(message(() -> HistoryRange.parse("A", "2024-01-02", "2024-01-01")).startsWith("to"));
        assertTrue(message(() -> HistoryRange.parse("A,B", "1000-01-01", "2999-01-01")).contains("at most"));
    }

    private static String message(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }
}
