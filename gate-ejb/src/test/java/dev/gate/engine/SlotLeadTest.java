package dev.gate.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The slot loop wakes {@link GrantLoop#LEAD} before a slot and its grant transaction waits, holding the limit's lock,
 * until the slot is due by the database's clock: with the real clock, every send is recorded at or after its slot,
 * never before it (the wait is measured from the lock's clock read, so the early wake never makes an early send).
 * How late the sends are prints (a figure, not asserted: a busy box makes any send late).
 */
class SlotLeadTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void sendsWokenEarlyGoAtTheirSlotNeverBefore() throws Exception {
        String limit = "lead";
        int slots = 60;
        Engine gate = copies.start("lead-copy");
        // 20 a second (a 50 ms gap, longer than the lead)
        copies.limit(limit, 20, Duration.ofSeconds(1), "receipt_margin_ms", 0);
        copies.grantAllThroughTheLoop(gate, limit, slots, Duration.ofSeconds(30));

        assertEquals(slots, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
        String late = "extract(epoch FROM sent_at - slot_at) * 1000";
        System.out.printf("woken %d ms early: %d sends at 20/s, late after their slot p50 %d ms, p90 %d ms, max %d ms%n",
                GrantLoop.LEAD.toMillis(), slots,
                copies.count("SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY " + late + "))::bigint "
                        + "FROM gate_send WHERE limit_name = ?", limit),
                copies.count("SELECT round(percentile_cont(0.9) WITHIN GROUP (ORDER BY " + late + "))::bigint "
                        + "FROM gate_send WHERE limit_name = ?", limit),
                copies.count("SELECT round(max(" + late + "))::bigint FROM gate_send WHERE limit_name = ?", limit));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ? AND sent_at < slot_at",
                limit), "no send before its slot");
    }
}
