package dev.gate.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tables stay small: after hours at 10 calls a second (6 in the suite, a day with -Dretention.hours=24), the housekeeping deletes the sends no window can count
 * any more and the calls past retention, in small batches, without ever taking the limit's slot lock; and the window
 * counts read the same before and after.
 */
class RetentionTest {

    /** Hours of history at 10/s: 6 in the suite (216,000 sends and calls); {@code -Dretention.hours=24} for a day. */
    private static final int HOURS = Integer.getInteger("retention.hours", 6);
    private static final int ROWS = HOURS * 36_000;

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aDayOfSendsAndCallsIsPrunedToWhatTheWindowsAndRetentionKeep() throws Exception {
        String limit = "daily";
        copies.limit(limit, 600, Duration.ofMinutes(1));
        long t0 = System.nanoTime();
        // one send and one finished call every 100 ms for the last 24 h, as the gate would have written them
        copies.sql("""
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                SELECT ?, i, now() - ? * interval '1 hour' + i * interval '100 ms',
                       now() - ? * interval '1 hour' + i * interval '100 ms', i
                FROM generate_series(1, ?) i""", limit, HOURS, HOURS, ROWS - 1);
        // counted at once: writing the calls below takes tens of seconds on a busy box, and the window moves on
        long inWindowBefore = copies.count("SELECT count(*) FROM gate_send WHERE sent_at > now() - interval '60 s'");
        copies.sql("UPDATE gate_slot SET send_seq = ? WHERE limit_name = ?", ROWS - 1, limit);
        OffsetDateTime callsWrittenAt = copies.dbNow();
        copies.sql("""
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, lease_ms,
                                       lease_expires_at, granted_at, done_at, outcome_status)
                SELECT ?, 3, 'worker', 'program:worker', 'DONE', t, 30000, t, t, t, 200
                FROM (SELECT ?::timestamptz - ? * interval '1 hour' + i * interval '100 ms' AS t
                      FROM generate_series(1, ?) i) d""", limit, callsWrittenAt, HOURS, ROWS - 1);
        copies.sql("ANALYZE gate_send");
        copies.sql("ANALYZE gate_call");
        Duration written = Duration.ofNanos(System.nanoTime() - t0);

        // the youngest sends as written, to check at the end (however long pruning took) that none a window or the
        // margin still counts was deleted
        copies.sql("CREATE TABLE young_sends AS SELECT sent_at FROM gate_send WHERE sent_at > now() - interval '15 min'");
        long sendsBefore = copies.count("SELECT count(*) FROM gate_send");
        long callsBefore = copies.count("SELECT count(*) FROM gate_call");

        long prune0 = System.nanoTime();
        Engine keeper = copies.start("keeper", GateCopies.FAST.withRetention(Duration.ofHours(1), Duration.ofMillis(100)),
                new ScheduledThreadPoolExecutor(2));
        // meanwhile, another session takes the limit's slot lock again and again without waiting: had a prune
        // transaction held it even once, NOWAIT would fail
        int slotLocks = 0;
        long until = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        try (Connection probe = copies.connect()) {
            probe.setAutoCommit(false);
            // kept: sends of the last window plus the margin (11 min at 10/s), calls of the last hour (36,000)
            while (count("SELECT count(*) FROM gate_send") > 6_700 || count("SELECT count(*) FROM gate_call") > 36_100) {
                assertTrue(System.nanoTime() < until, "the tables were not pruned within 3 minutes");
                for (int i = 0; i < 20; i++) {
                    try (PreparedStatement ps = probe.prepareStatement(
                            "SELECT 1 FROM gate_slot WHERE limit_name = ? FOR UPDATE NOWAIT")) {
                        ps.setString(1, limit);
                        ps.executeQuery().close(); // 55P03 if anyone held it
                    }
                    probe.rollback();
                    slotLocks++;
                    Thread.sleep(25);
                }
            }
        }
        Duration pruned = Duration.ofNanos(System.nanoTime() - prune0);
        long sendsAfter = copies.count("SELECT count(*) FROM gate_send");
        long callsAfter = copies.count("SELECT count(*) FROM gate_call");
        System.out.printf("retention: " + HOURS + " h at 10/s written in %d ms; gate_send %,d -> %,d rows, gate_call %,d -> %,d "
                        + "rows (retention 1 h) in %,d ms of pruning; the slot lock taken with NOWAIT %d times meanwhile%n",
                written.toMillis(), sendsBefore, sendsAfter, callsBefore, callsAfter, pruned.toMillis(), slotLocks);

        keeper.stop(); // no prune runs after this instant: every one of them deleted only sends older than it
        OffsetDateTime end = copies.dbNow();
        String keptSince = "SELECT count(*) FROM %s WHERE sent_at > ?::timestamptz - ? * interval '1 ms'";
        long keptSpanMs = 60_000 + dev.gate.store.Retention.SEND_MARGIN.toMillis();
        long expected = copies.count(keptSince.formatted("young_sends"), end, keptSpanMs);
        assertTrue(expected > 0, "no send was young enough at the end to check (writing and pruning took too long)");
        assertEquals(expected, copies.count(keptSince.formatted("gate_send"), end, keptSpanMs),
                "no send a window (or the margin after it) counts was deleted");
        assertTrue(inWindowBefore >= 300, "the last window holds sends: " + inWindowBefore);
        // the last 59 minutes of calls as written (35,400) are all younger than the 1 h retention
        assertTrue(copies.count("SELECT count(*) FROM gate_call WHERE done_at > ?::timestamptz - interval '59 min'",
                callsWrittenAt) >= 35_000, "calls inside retention are kept");
    }

    @Test
    void aRuleGivenAfterRetentionPrunedItsWindowCountsThePrunedSendsAsUsedNeverAsRoom() throws Exception {
        // on the old code a unit the log no longer held read as missing, and missing as room: a limit saturated for
        // 20 minutes, then given a rule of 1,000 an hour, sent on as if the hour held only the 11 minutes kept
        Engine gate = copies.start("gate");
        dev.gate.api.LimitSpec minute = dev.gate.api.LimitSpec.of(100, Duration.ofMinutes(1));
        dev.gate.api.LimitSpec hourToo = minute.withMoreRules(java.util.List.of(
                new dev.gate.api.LimitSpec.Rule(1000, Duration.ofHours(1))));
        for (String limit : new String[] {"twenty-minutes", "fifteen-minutes"}) {
            gate.limits().put(limit, minute);
            int sent = limit.startsWith("twenty") ? 1200 : 900; // one a second, the last a second ago
            copies.logSends(limit, sent, Duration.ofSeconds(sent), Duration.ofSeconds(1));
            // retention kept the longest window and its margin: 11 minutes
            copies.sql("DELETE FROM gate_send WHERE limit_name = ? AND sent_at < clock_timestamp() - interval '11 min'",
                    limit);
            gate.limits().put(limit, hourToo);
        }
        // 1,200 sent in the hour: full, though the log holds 660 of them; the window frees when the 1,000th most
        // recent unit leaves it (it went 16.7 minutes ago, 43 minutes from now; the log can tell 49 at most)
        dev.gate.api.Attempt tried = gate.callers().tryNow("twenty-minutes", dev.gate.api.CallClass.INTERACTIVE, "web",
                dev.gate.api.CallOptions.NONE);
        assertTrue(!tried.isGranted() && tried.retryAfter().compareTo(Duration.ofMinutes(40)) > 0,
                "the hour is full: " + (tried.isGranted() ? "granted" : tried.retryAfter()));
        Ticket joined = gate.callers().join("twenty-minutes", dev.gate.api.CallClass.INTERACTIVE, "web",
                dev.gate.api.CallOptions.NONE);
        assertEquals("WAITING", copies.state(joined.callId()), "the grant pass reads the hour full too");
        // 900 sent in the hour: room for 100 more, and the log can say so (no unit it lacks is in the window)
        assertTrue(gate.callers().tryNow("fifteen-minutes", dev.gate.api.CallClass.INTERACTIVE, "web",
                dev.gate.api.CallOptions.NONE).isGranted(), "room the log can see is room");
    }

    private long count(String sql) {
        try {
            return copies.count(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
