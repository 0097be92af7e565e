package dev.gate.store;

import dev.gate.domain.Tables;

import org.junit.jupiter.api.Test;

import java.sql.SQLWarning;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * PostgreSQL says a skipped vacuum as a warning; the operators' log must say the right reason: a lock (it passes) or
 * a table the gate's role may not vacuum (it stays until its owner acts). The messages are PostgreSQL's own (15, 16).
 */
class VacuumSkipTest {

    @Test
    void aHeldLockIsSkippedForNowAndAnotherRolesTableIsNotTheGates() {
        assertEquals(Tables.Vacuumed.DONE, GateTables.skipped(null));
        assertEquals(Tables.Vacuumed.SKIPPED_LOCKED,
                GateTables.skipped(new SQLWarning("skipping vacuum of \"gate_call\" --- lock not available")));
        assertEquals(Tables.Vacuumed.NOT_ALLOWED, GateTables.skipped(
                new SQLWarning("skipping \"gate_call\" --- only table or database owner can vacuum it")));
        assertEquals(Tables.Vacuumed.NOT_ALLOWED,
                GateTables.skipped(new SQLWarning("permission denied to vacuum \"gate_call\", skipping it")));
    }
}
