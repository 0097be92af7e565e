package dev.gate.store;

import dev.gate.dev.GateDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The tests' one way to declare a limit by its row (GateDatabase.limit) writes what the raw INSERT wrote: the columns
 * given, the table's defaults for the rest, a slot by the trigger; a column name that could bend the statement is
 * refused before anything is written.
 */
class LimitRowTest {

    private final GateDatabase db = GateDatabase.fresh("gate_limit_row_test");

    @Test
    void aLimitDeclaredByItsRowHasItsColumnsTheDefaultsAndASlot() throws Exception {
        db.limit("plain", 600, Duration.ofMinutes(1));
        db.limit("bursty", 10, Duration.ofMillis(1500), "burst", 2, "keyed", true);

        assertEquals(1, db.count("SELECT count(*) FROM gate_limit WHERE name = 'plain' AND calls = 600 "
                + "AND window_ms = 60000 AND burst = 1 AND NOT keyed"), "the defaults, as the raw INSERT left them");
        assertEquals(1, db.count("SELECT count(*) FROM gate_limit WHERE name = 'bursty' AND calls = 10 "
                + "AND window_ms = 1500 AND burst = 2 AND keyed"));
        assertEquals(2, db.count("SELECT count(*) FROM gate_slot WHERE limit_name IN ('plain', 'bursty')"));
    }

    @Test
    void aColumnNameOutsideLowerCaseLettersAndUnderscoresOrAnUnpairedValueIsRefused() throws Exception {
        assertThrows(IllegalArgumentException.class,
                () -> db.limit("bad", 1, Duration.ofSeconds(1), "burst) VALUES ('x', 1, 1, 1); --", 1));
        assertThrows(IllegalArgumentException.class, () -> db.limit("bad", 1, Duration.ofSeconds(1), "Burst", 1));
        assertThrows(IllegalArgumentException.class, () -> db.limit("bad", 1, Duration.ofSeconds(1), "burst"));
        assertThrows(IllegalArgumentException.class, () -> db.limit("bad", 1, Duration.ofSeconds(1), 2, "burst"));
        assertEquals(0, db.count("SELECT count(*) FROM gate_limit"));
    }
}
