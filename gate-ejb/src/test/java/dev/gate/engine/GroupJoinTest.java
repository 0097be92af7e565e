package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.GateFailedException;
import dev.gate.domain.CallRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Calls of one instance that arrive at a limit while a join of it is under way join together: one statement, one
 * commit (a group join). The group's members are each registered before the commit, keep their places and are
 * granted as any; a group that fails joins none of its members, and the next group is not hurt. The test holds the
 * group's leader until the group has gathered; a trigger fails one member's insert.
 */
class GroupJoinTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void callsArrivingWhileAJoinRunsJoinTogetherInOneTransactionAndAreGrantedAsAny() throws Exception {
        Engine gate = heldLine("together");
        ExecutorService callers = Executors.newFixedThreadPool(10);
        try {
            List<Future<ProgramCalls.Submitted>> web = gathered(gate, "together", callers, List.of("web", "web", "web",
                    "web", "web", "web", "web", "web", "web", "web"));
            List<ProgramCalls.Submitted> joined = new ArrayList<>();
            for (Future<ProgramCalls.Submitted> f : web) {
                joined.add(f.get(5, TimeUnit.SECONDS));
            }
            assertEquals(1, copies.count("SELECT count(DISTINCT xmin::text) FROM gate_call WHERE program = 'web'"),
                    "the ten joined in one transaction");
            assertEquals(10, copies.count("SELECT count(*) FROM gate_call WHERE state = 'WAITING'"));

            // the slot comes due: a join's pass grants the line in order, the group's members with it, and each
            // one's watch (registered before the group's commit) hears of its grant
            copies.sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() - interval '1 second' "
                    + "WHERE limit_name = 'together'");
            submit(gate, "together", "last");
            for (ProgramCalls.Submitted s : joined) {
                CallRow granted = s.watch().orElseThrow().get(5, TimeUnit.SECONDS);
                assertNotNull(granted, "granted here: the watch brings the call");
                assertEquals("GRANTED", copies.state(s.call().id()));
            }
            assertEquals(11, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = 'together'"));
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aGroupThatFailsJoinsNoneOfItsMembersAndTheNextGroupGoesOn() throws Exception {
        Engine gate = heldLine("failing");
        copies.sql("""
                CREATE FUNCTION boom() RETURNS trigger AS $$
                BEGIN RAISE EXCEPTION 'boom'; END $$ LANGUAGE plpgsql""");
        copies.sql("CREATE TRIGGER boom BEFORE INSERT ON gate_call FOR EACH ROW WHEN (NEW.program = 'boom') "
                + "EXECUTE FUNCTION boom()");
        ExecutorService callers = Executors.newFixedThreadPool(6);
        try {
            List<Future<ProgramCalls.Submitted>> group = gathered(gate, "failing", callers,
                    List.of("web", "web", "web", "web", "web", "boom"));
            for (Future<ProgramCalls.Submitted> f : group) {
                java.util.concurrent.ExecutionException e = assertThrows(
                        java.util.concurrent.ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
                assertInstanceOf(GateFailedException.class, e.getCause(), "each member hears the group's failure");
            }
            assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE program IN ('web', 'boom')"),
                    "none of the group joined");
            assertEquals(0, gate.joining().groups().waiting("failing"));
            // the next calls join as before
            assertEquals("WAITING", submit(gate, "failing", "web").call().state().name());
        } finally {
            callers.shutdownNow();
        }
    }

    /**
     * One submission of each program at {@code limit}, the group's leader held until all of them have gathered,
     * then let go: they join as one group.
     */
    private static List<Future<ProgramCalls.Submitted>> gathered(Engine gate, String limit, ExecutorService callers,
                                                                List<String> programs) throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        gate.joining().groups().holdLeaders(hold);
        List<Future<ProgramCalls.Submitted>> submitted = new ArrayList<>();
        for (String program : programs) {
            submitted.add(callers.submit(() -> submit(gate, limit, program)));
        }
        GateCopies.await(programs.size() + " calls gathered at the limit", Duration.ofSeconds(10),
                () -> gate.joining().groups().waiting(limit) == programs.size());
        hold.countDown();
        gate.joining().groups().holdLeaders(null);
        return submitted;
    }

    /** A gate whose loop never runs, and a limit whose slot is far off: joined calls wait. */
    private Engine heldLine(String limit) throws Exception {
        Engine gate = copies.start(limit, GateCopies.FAST, new StalledLoopScheduler());
        copies.limit(limit, 1000, Duration.ofSeconds(1), "burst", 100);
        copies.sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() + interval '1 hour' "
                + "WHERE limit_name = '" + limit + "'");
        return gate;
    }

    private static ProgramCalls.Submitted submit(Engine gate, String limit, String program) throws GateException {
        return gate.programs().submit(program, limit, CallClass.SCHEDULED, CallOptions.NONE, null, null, true);
    }
}
