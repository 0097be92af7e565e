package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Programs taking turns inside a class, on the real clock: worker A floods SCHEDULED calls, worker B sends one
 * SCHEDULED call every second. With turns, B's calls wait at most about two gaps, and A's own calls stay first come
 * first served; without them, B's calls queue behind A's backlog, as the strict order says.
 */
class FairProgramsTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    private static final Duration GAP = Duration.ofMillis(50); // 20 per second (the margin adds 2.5 ms)

    @Test
    void withTurnsAFloodingProgramCannotPushAnothersCallsBack() throws Exception {
        Engine gate = copies.start("fair");
        String limit = "fair";
        gate.limits().put(limit, LimitSpec.of(20, Duration.ofSeconds(1)).withFairPrograms(true));
        List<Long> waits = new ArrayList<>();
        try (Flood a = new Flood(copies, gate, limit, "worker-a", CallClass.SCHEDULED, 20)) {
            a.start();
            GateCopies.await("A's backlog", Duration.ofSeconds(5), () -> a.waiting() >= 15);
            for (int i = 0; i < 3; i++) {
                long b = gate.programs().submit("worker-b", limit, CallClass.SCHEDULED, CallOptions.NONE, null)
                        .call().id();
                GateCopies.await("B's call " + b + " granted", Duration.ofSeconds(5),
                        () -> copies.state(b).equals("GRANTED"));
                waits.add(waited(b));
                assertTrue(a.waiting() > 5, "A still had a backlog when B's call went");
                Thread.sleep(Math.max(0, 1_000 - waits.get(i)));
            }
        }
        System.out.println("turns: worker B's calls waited " + waits + " ms behind worker A's flood (gap "
                + GAP.toMillis() + " ms)");
        for (long w : waits) {
            // about two gaps: the slot in flight, then B's turn; 100 ms more for the real clock's lateness
            assertTrue(w <= GAP.multipliedBy(2).toMillis() + 100, "B waited " + w + " ms: " + waits);
        }
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call a JOIN gate_call b ON a.program = b.program "
                + "AND a.limit_name = b.limit_name AND a.enqueued_at < b.enqueued_at AND a.granted_at > b.granted_at "
                + "WHERE a.limit_name = ?", limit), "first come first served inside each program");
        assertEquals(2, copies.count("SELECT count(*) FROM gate_program_turn WHERE limit_name = ?", limit),
                "each program's turn is kept");
    }

    @Test
    void withoutTurnsTheStrictOrderPutsTheLateProgramBehindTheBacklog() throws Exception {
        Engine gate = copies.start("strict-fifo");
        String limit = "strict-fifo";
        gate.limits().put(limit, LimitSpec.of(20, Duration.ofSeconds(1)));
        try (Flood a = new Flood(copies, gate, limit, "worker-a", CallClass.SCHEDULED, 20)) {
            a.start();
            GateCopies.await("A's backlog", Duration.ofSeconds(5), () -> a.waiting() >= 15);
            long b = gate.programs().submit("worker-b", limit, CallClass.SCHEDULED, CallOptions.NONE, null).call().id();
            GateCopies.await("B's call granted", Duration.ofSeconds(5), () -> copies.state(b).equals("GRANTED"));
            long waited = waited(b);
            System.out.println("strict order: worker B's call waited " + waited + " ms behind worker A's backlog");
            assertTrue(waited >= GAP.multipliedBy(10).toMillis(), "behind the 15 or more calls ahead: " + waited);
        }
    }

    private long waited(long id) {
        try {
            return copies.count("SELECT (extract(epoch FROM granted_at - enqueued_at) * 1000)::bigint FROM gate_call "
                    + "WHERE id = ?", id);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
