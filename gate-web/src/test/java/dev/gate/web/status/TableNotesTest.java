package dev.gate.web.status;

import dev.gate.app.TableHealth;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TableNotesTest {

    private static final Instant AT = Instant.parse("2026-12-03T12:00:00Z");

    @Test
    void nothingToSayWhenAutovacuumLooksAfterEveryTableAndNothingHoldsItBack() {
        assertEquals(List.of(), TableNotes.of(health(List.of(), true, List.of(), Optional.empty(), Optional.empty())));
    }

    @Test
    void autovacuumOffSaysTheGateVacuumsAndWhenItLastDid() {
        List<String> notes = TableNotes.of(health(List.of("gate_call", "gate_send"), true, List.of(),
                Optional.empty(), Optional.of(new TableHealth.Vacuum("gate_call", AT.minusSeconds(12), "DONE",
                        21_866, Duration.ofMillis(140)))));
        assertEquals(1, notes.size());
        assertTrue(notes.get(0).startsWith("Autovacuum is off for gate_call, gate_send: the gate vacuums these "
                + "tables itself. Last: gate_call, 12 s ago (done, 21,866 dead rows, 140 ms)."), notes.get(0));
    }

    @Test
    void tablesLeftToGrowAndALongTransactionAreBothSaid() {
        List<String> notes = TableNotes.of(health(List.of("gate_call"), false, List.of("gate_call"),
                Optional.of(new TableHealth.HeldBack("nightly-report", 4242, "idle in transaction",
                        AT.minus(Duration.ofMinutes(25)))), Optional.empty()));
        assertEquals(2, notes.size());
        assertTrue(notes.get(0).contains("GATE_SELF_VACUUM=off"), notes.get(0));
        assertTrue(notes.get(1).startsWith("A transaction of 'nightly-report' (pid 4242, idle in transaction) open "
                + "for 25 min holds back vacuum"), notes.get(1));
    }

    private static TableHealth health(List<String> off, boolean self, List<String> left,
                                      Optional<TableHealth.HeldBack> held, Optional<TableHealth.Vacuum> last) {
        return new TableHealth(AT, off, self, left, held, true, last, List.of());
    }
}
