package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.dev.GateDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A try locks the slot row first and decides after, in one round trip: the decision's snapshot is taken with the lock
 * held, so a try that waited for another grant's lock decides on that grant's send (a single statement read the log as
 * of before its wait, missed the send, and was asked again: three round trips).
 */
class TryStatementsTest {

    @Test
    void aTryThatWaitedForAnotherGrantsLockDecidesOnItsSendAtOnce() throws Exception {
        GateDatabase db = GateDatabase.fresh("gate_try_statements_test");
        db.limit("v", 3, Duration.ofMinutes(1), "burst", 3);
        db.sql("INSERT INTO gate_send (limit_name, call_id, sent_at, seq) VALUES ('v', 1, now(), 1)");
        db.sql("UPDATE gate_slot SET send_seq = 1, next_slot_at = now() - interval '1 hour' WHERE limit_name = 'v'");

        try (Connection granter = db.connect(); Connection trier = db.connect()) {
            // another grant holds the slot, logs send 2 and moves the slot, not yet committed
            granter.setAutoCommit(false);
            try (Statement s = granter.createStatement()) {
                s.execute("SELECT 1 FROM gate_slot WHERE limit_name = 'v' FOR UPDATE");
                s.execute("INSERT INTO gate_send (limit_name, call_id, sent_at, seq) VALUES ('v', 2, now(), 2)");
                s.execute("UPDATE gate_slot SET send_seq = 2 WHERE limit_name = 'v'");
            }
            trier.setAutoCommit(true); // as Tx.runAlone runs it: one implicit transaction for both statements
            try (Statement s = trier.createStatement()) {
                s.execute("SET lock_timeout = '10s'");
            }
            CompletableFuture<Optional<FreeSlot.Result>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return FreeSlot.take(trier, FreeSlot.TRY, "v", null, CallClass.INTERACTIVE, "api", "o1",
                            Duration.ofSeconds(30), "try:1");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitLockWait(db);
            assertFalse(waiting.isDone(), "the try waits for the slot's lock");
            granter.commit();

            FreeSlot.Result result = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
            assertTrue(result.grant().isPresent(), "the third of three is free, decided on send 2: " + result);
            assertEquals(3, db.count("SELECT max(seq) FROM gate_send WHERE limit_name = 'v'"),
                    "its send follows the one it waited for");
            assertEquals(3, db.count("SELECT send_seq FROM gate_slot WHERE limit_name = 'v'"));

            Optional<FreeSlot.Result> fourth = FreeSlot.take(trier, FreeSlot.TRY, "v", null, CallClass.INTERACTIVE,
                    "api", "o1", Duration.ofSeconds(30), "try:2");
            assertTrue(fourth.orElseThrow().grant().isEmpty(), "the window holds three");
        }
    }

    @Test
    void aDriverThatSplitsTheTwoStatementsIsToldSoNotAnsweredNotNow() throws Exception {
        GateDatabase db = GateDatabase.fresh("gate_try_statements_split_test");
        db.limit("v", 3, Duration.ofMinutes(1));
        String url = db.server().url(db.name());
        // the simple query mode sends each statement on its own: the lock's transaction ends before the decision
        try (Connection simple = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?")
                + "preferQueryMode=simple", db.server().user(), db.server().password())) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> FreeSlot.take(simple,
                    FreeSlot.TRY, "v", null, CallClass.INTERACTIVE, "api", "o1", Duration.ofSeconds(30), "try:1"));
            assertTrue(e.getMessage().contains("two transactions"), e.getMessage());
        }
        assertEquals(0, db.count("SELECT count(*) FROM gate_send"), "nothing taken");
    }

    /** Until a session of the test's database waits for a lock (10 s at most). */
    private static void awaitLockWait(GateDatabase db) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (db.count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND wait_event_type = 'Lock'") == 0) {
            if (System.nanoTime() > until) {
                throw new AssertionError("the try never waited for the lock");
            }
            Thread.sleep(10);
        }
    }
}
