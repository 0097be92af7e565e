package dev.gate.bench;

import dev.gate.dev.GateDatabase;
import dev.gate.engine.Engine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The side-by-side benchmark's gate scenarios, a few seconds each, as the build runs them: they print their figures
 * and fail only on a correctness breach (a window over the limit, a call lost, a class order broken), never on a
 * timing, so the benchmark's code cannot rot between full runs ({@code mvn -Pbench}, README "Benchmarks").
 */
class ScenariosCheckTest {

    private static GateDatabase db;

    @BeforeAll
    static void database() throws Exception {
        db = GateDatabase.fresh("gate_scenarios_check");
    }

    @AfterAll
    static void stop() {
        db.server().stop();
    }

    @Test
    void scenario1EveryAcquireIsGrantedOnceAndItsOutcomeKept() throws Exception {
        db.limit("open", 1000000, Duration.ofSeconds(1));
        List<AutoCloseable> resources = new ArrayList<>();
        Engine gate = BenchCopies.start("check-open", db, resources);
        Cells.Cell cell = SideBySide.gateCell(gate, "open", 4, 2);
        gate.stop();
        for (AutoCloseable r : resources) {
            r.close();
        }
        System.out.printf("scenario 1 (short): %.0f grants/s at 4 callers, grant %s%n", cell.perSecond(),
                cell.latency().summary());
        assertEquals(0, cell.failures(), "no acquire failed");
        long sends = db.count("SELECT count(*) FROM gate_send WHERE limit_name = 'open'");
        assertTrue(sends > 0);
        assertEquals(sends, db.count("SELECT count(*) FROM gate_call WHERE limit_name = 'open' AND state = 'DONE'"),
                "every grant was sent once and its outcome kept");
        assertEquals(sends, db.count("SELECT count(*) FROM gate_call WHERE limit_name = 'open'"),
                "nothing left in the line");
    }

    @Test
    void scenario2And4TwoCopiesNeverOverfillAWindowByGrantNorByReceipt() throws Exception {
        SharedWindowScenario.SharedWindow w = SharedWindowScenario.gateSharedWindow(db, "shared", 20, Duration.ofSeconds(1), 5);
        System.out.printf("scenario 2 (short): 20 per 1 s, fullest window %d by grant, %d by receipt (slowest "
                        + "receipt %d ms, margin %d ms), utilization %.3f; scenario 4: lateness %s%n", w.byGrant(),
                w.byReceipt(), w.slowestReceipt().toMillis(), w.margin().toMillis(), w.utilization(),
                w.lateness().summary());
        assertTrue(w.byGrant() <= 20, "by grant time a window held " + w.byGrant());
        if (w.receiptWithinMargin()) {
            assertTrue(w.byReceipt() <= 20, "by receipt a window held " + w.byReceipt()
                    + " though every grant arrived within the margin");
        } else {
            System.out.println("a grant took longer than the receipt margin to arrive: the receipt count is not "
                    + "judged on this run");
        }
        assertEquals(w.grants(), w.done(), "every grant's outcome was kept");
        assertTrue(w.grants() >= 20, "the line moved: " + w.grants() + " grants");
    }

    @Test
    void scenario3NoBackfillJumpsAWaitingPerson() throws Exception {
        InteractiveScenario.Interactive run = InteractiveScenario.gateInteractive(db, "flooded", 8);
        System.out.printf("scenario 3 (short): interactive wait %s; most backfill grants while one waited: %d%n",
                new Percentiles(run.waits()).summary(), run.mostBackfillGrantsWhileWaiting());
        assertFalse(run.waits().isEmpty(), "the person's calls were granted");
        assertTrue(run.mostBackfillGrantsWhileWaiting() <= 1, "a person waited while "
                + run.mostBackfillGrantsWhileWaiting() + " backfill calls were granted (one pass in flight at most)");
    }
}
