package dev.gate.engine;

import dev.gate.api.CallClass;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 9: two real gate processes (one engine copy per JVM, {@link CopyProcess}) flood one limit at saturation in
 * one class, so their calls interleave in the line; one is killed with SIGKILL. The survivor keeps the beat, the dead
 * copy's waiting calls expire within one lease and are never granted, and no window goes over the limit.
 */
class KilledCopyTest {

    private static final String LIMIT = "saturated";
    private static final int CALLS = 20;
    private static final Duration WINDOW = Duration.ofSeconds(1);
    private static final int FLOODERS = 6;
    private static final CallClass CLASS = CallClass.SCHEDULED;
    private static final Duration LEASE = Duration.ofMillis(2000);
    /**
     * Allowed beyond one lease for the expiry to show: the lease was renewed up to one heartbeat before the kill (so
     * it ends at most one lease after it), the survivor clears lapsed leases on its waiter poll, plus generous
     * scheduling slack for a busy CI machine. The measured figure is printed; this bound only catches calls that
     * linger (the old code's dead calls were granted instead).
     */
    private static final Duration EXPIRY_MARGIN = CopyProcess.WAITER_POLL.plusSeconds(2);
    /** How long the survivor runs alone after the kill. */
    private static final Duration SURVIVOR_RUN = Duration.ofSeconds(7);
    /**
     * The survivor's share of the limit after the kill is a printed figure (100.5% measured); this bound only catches
     * a survivor that stalls behind the dead copy's calls for most of its run, not a slow machine.
     */
    private static final double MIN_UTILIZATION = 0.50;
    private static final long CHILD_MAX_SECONDS = 120;

    @RegisterExtension
    final GateCopies copies = new GateCopies();
    private final List<Process> children = new ArrayList<>();
    private Path logs;

    @BeforeEach
    void logs() throws Exception {
        logs = Path.of("target", "killed-copy");
        Files.createDirectories(logs);
    }

    @AfterEach
    void stop() throws Exception {
        for (Process p : children) {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
        for (Process p : children) {
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aKilledProcesssWaitingCallsExpireWithinOneLeaseAndAreNeverGrantedWhileTheSurvivorKeepsTheBeat()
            throws Exception {
        copies.limit(LIMIT, CALLS, WINDOW);
        String doomed = "copy-doomed";
        String survivor = "copy-survivor";
        Process doomedProcess = launch(doomed);
        Process survivorProcess = launch(survivor);

        // both flood, and the line holds calls of both
        awaitChildren("both copies granted several calls", Duration.ofSeconds(25),
                () -> sendsOf(doomed) >= 10 && sendsOf(survivor) >= 10, doomedProcess, survivorProcess);
        awaitChildren("calls of both copies waiting in the line", Duration.ofSeconds(5),
                () -> waiting(doomed) >= 2 && waiting(survivor) >= 2, doomedProcess, survivorProcess);
        long doomedBefore = sendsOf(doomed);
        long survivorBefore = sendsOf(survivor);

        Instant killAt = dbNow();
        doomedProcess.destroyForcibly(); // SIGKILL: no shutdown hook, no clean stop, the calls stay in the line
        assertTrue(doomedProcess.waitFor(10, TimeUnit.SECONDS), "the killed copy is gone");
        Instant deadAt = dbNow(); // from here on, nothing of the dead copy can commit
        long waitingAtDeath = waiting(doomed);

        // the survivor runs alone for a while, and at least until none of the dead copy's calls waits any more
        long runUntil = System.nanoTime() + SURVIVOR_RUN.toNanos();
        awaitChildren("the survivor to run alone for " + SURVIVOR_RUN + " and no call of the dead copy to wait",
                SURVIVOR_RUN.plus(LEASE).plusSeconds(5),
                () -> System.nanoTime() >= runUntil && waiting(doomed) == 0, survivorProcess);
        Instant stopAt = dbNow();
        survivorProcess.destroy(); // SIGTERM: a clean stop
        if (!survivorProcess.waitFor(10, TimeUnit.SECONDS)) {
            survivorProcess.destroyForcibly();
            survivorProcess.waitFor(10, TimeUnit.SECONDS);
        }

        // (a) the dead copy's calls that were waiting when it died
        List<DeadCall> dead = deadCallsWaitingAt(doomed, deadAt);
        List<DeadCall> notExpired = dead.stream().filter(c -> !c.state.equals("EXPIRED")).toList();
        List<DeadCall> sent = dead.stream().filter(c -> c.sends > 0).toList();
        long lastExpiryMs = dead.stream().filter(c -> c.state.equals("EXPIRED") && c.doneAt != null)
                .mapToLong(c -> Duration.between(killAt, c.doneAt).toMillis()).max().orElse(-1);
        List<DeadCall> expiredLate = dead.stream().filter(c -> c.state.equals("EXPIRED") && c.doneAt != null
                && c.doneAt.isAfter(killAt.plus(LEASE).plus(EXPIRY_MARGIN))).toList();
        // (b) grants of the dead copy's calls after its death: only another copy can have made them
        long grantedAfterDeath = copies.count("""
                SELECT count(*) FROM gate_send s JOIN gate_call c ON c.id = s.call_id
                WHERE s.limit_name = ? AND c.owner = ? AND s.sent_at > ?""", LIMIT, doomed, ts(deadAt));
        long grantedAfterKill = copies.count("""
                SELECT count(*) FROM gate_send s JOIN gate_call c ON c.id = s.call_id
                WHERE s.limit_name = ? AND c.owner = ? AND s.sent_at > ?""", LIMIT, doomed, ts(killAt));
        // (c) the whole send log, as the vendor counts it
        List<Instant> sends = copies.sends(LIMIT);
        int fullest = GateCopies.fullestWindow(sends, WINDOW);
        // (d) the beat after the kill: every send (whoever's call it was) from the first one after the death
        List<Send> after = sendsBetween(deadAt, stopAt);
        double limitRate = CALLS / (WINDOW.toNanos() / 1e9);
        double seconds = after.isEmpty() ? 0 : Duration.between(after.get(0).sentAt, stopAt).toNanos() / 1e9;
        double rate = after.isEmpty() || seconds <= 0 ? 0 : after.size() / seconds;
        double utilization = rate / limitRate;
        long[] late = after.stream().filter(s -> s.slotAt != null)
                .mapToLong(s -> Duration.between(s.slotAt, s.sentAt).toMillis()).sorted().toArray();
        long longestGapMs = 0;
        for (int i = 1; i < after.size(); i++) {
            longestGapMs = Math.max(longestGapMs,
                    Duration.between(after.get(i - 1).sentAt, after.get(i).sentAt).toMillis());
        }
        long survivorErrors = lastCount(survivor, "errors");

        System.out.printf("killed copy: limit %d/%d ms, %d flooders per copy in %s, lease %d ms (+%d ms margin);"
                        + " sends before the kill: doomed %d, survivor %d; the kill took %d ms (SIGKILL to gone, db"
                        + " time); dead copy's calls waiting at its death: %d (%d when counted), expired %d (last %d ms"
                        + " after the kill, %d later than lease+margin), sent %d, granted after the kill %d, after"
                        + " its death %d; survivor alone: %d sends in %.2f s = %.2f/s of %.2f/s (%.1f%%), longest gap"
                        + " %d ms, lateness against the beat p50/p99/max %d/%d/%d ms, survivor caller errors %d; fullest %d ms"
                        + " window over all %d sends: %d (limit %d)%n",
                CALLS, WINDOW.toMillis(), FLOODERS, CLASS, LEASE.toMillis(), EXPIRY_MARGIN.toMillis(), doomedBefore,
                survivorBefore, Duration.between(killAt, deadAt).toMillis(), dead.size(), waitingAtDeath,
                dead.size() - notExpired.size(), lastExpiryMs, expiredLate.size(), sent.size(), grantedAfterKill,
                grantedAfterDeath, after.size(), seconds, rate, limitRate, 100 * utilization, longestGapMs,
                percentile(late, 0.50), percentile(late, 0.99), percentile(late, 1.0), survivorErrors,
                WINDOW.toMillis(), sends.size(), fullest, CALLS);

        assertTrue(!dead.isEmpty(), "the dead copy had calls waiting in the line when it died");
        assertAll(
                () -> assertEquals(List.of(), notExpired, "(a) every call of the dead copy waiting at its death"
                        + " ends EXPIRED (" + notExpired.size() + " of " + dead.size() + " did not)"),
                () -> assertEquals(List.of(), sent, "(a) no call of the dead copy waiting at its death is ever"
                        + " granted (" + sent.size() + " of " + dead.size() + " have a send)"),
                () -> assertEquals(List.of(), expiredLate, "(a) the dead copy's calls expire within one lease ("
                        + LEASE.toMillis() + " ms + " + EXPIRY_MARGIN.toMillis() + " ms) of the kill"),
                () -> assertEquals(0, grantedAfterDeath, "(b) no call of the dead copy is granted after its death"),
                () -> assertTrue(fullest <= CALLS, "(c) a " + WINDOW.toMillis() + " ms window held " + fullest
                        + " sends, limit " + CALLS),
                () -> assertTrue(utilization >= MIN_UTILIZATION, String.format("(d) the survivor keeps the beat:"
                        + " %.2f/s after the kill is %.1f%% of the limit %.2f/s, below %.0f%%", rate,
                        100 * utilization, limitRate, 100 * MIN_UTILIZATION)));
    }

    // -- the child processes

    private Process launch(String instance) throws IOException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = List.of(java, "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), CopyProcess.class.getName(),
                copies.server().url(copies.name()), copies.server().user(), copies.server().password(), instance,
                LIMIT, Integer.toString(FLOODERS), CLASS.name(), Long.toString(LEASE.toMillis()),
                Long.toString(CHILD_MAX_SECONDS));
        File out = logs.resolve(instance + ".out").toFile();
        File err = logs.resolve(instance + ".err").toFile();
        Process p = new ProcessBuilder(command).redirectOutput(out).redirectError(err).start();
        children.add(p);
        return p;
    }

    /** Waits for a condition; fails at once, with the child's output, when a child that must live has died. */
    private void awaitChildren(String what, Duration timeout, Condition condition, Process... mustLive)
            throws Exception {
        long until = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            for (Process p : mustLive) {
                if (!p.isAlive()) {
                    fail("a gate copy exited (" + p.exitValue() + ") while waiting for: " + what + "\n" + tails());
                }
            }
            if (System.nanoTime() > until) {
                fail("timed out after " + timeout + " waiting for: " + what + "\n" + tails());
            }
            Thread.sleep(20);
        }
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    private String tails() {
        try (var files = Files.list(logs)) {
            return files.sorted().map(f -> {
                try {
                    List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                    return "--- " + f + "\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 15),
                            lines.size()));
                } catch (IOException e) {
                    return "--- " + f + ": " + e;
                }
            }).collect(Collectors.joining("\n"));
        } catch (IOException e) {
            return "(no logs: " + e + ")";
        }
    }

    /** The last {@code granted <n> errors <m>} figure a child printed. */
    private long lastCount(String instance, String word) throws IOException {
        List<String> lines = Files.readAllLines(logs.resolve(instance + ".out"), StandardCharsets.UTF_8);
        for (int i = lines.size() - 1; i >= 0; i--) {
            List<String> parts = Arrays.asList(lines.get(i).trim().split(" "));
            int at = parts.indexOf(word);
            if (at >= 0 && at + 1 < parts.size()) {
                return Long.parseLong(parts.get(at + 1));
            }
        }
        return -1;
    }

    // -- the tables

    private long sendsOf(String owner) throws SQLException {
        return copies.count("""
                SELECT count(*) FROM gate_send s JOIN gate_call c ON c.id = s.call_id
                WHERE s.limit_name = ? AND c.owner = ?""", LIMIT, owner);
    }

    private long waiting(String owner) throws SQLException {
        return copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND owner = ? AND state = 'WAITING'",
                LIMIT, owner);
    }

    private Instant dbNow() throws SQLException {
        try (Connection c = copies.connect(); PreparedStatement ps = c.prepareStatement("SELECT clock_timestamp()");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    private static OffsetDateTime ts(Instant t) {
        return t.atOffset(ZoneOffset.UTC);
    }

    private record DeadCall(long id, String state, Instant enqueuedAt, Instant grantedAt, Instant doneAt,
                            Instant leaseExpiresAt, long sends) {
    }

    /** The owner's calls that were in the line at {@code at}: joined by then, neither granted nor ended by then. */
    private List<DeadCall> deadCallsWaitingAt(String owner, Instant at) throws SQLException {
        List<DeadCall> out = new ArrayList<>();
        try (Connection c = copies.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT c.id, c.state, c.enqueued_at, c.granted_at, c.done_at, c.lease_expires_at,
                       (SELECT count(*) FROM gate_send s WHERE s.call_id = c.id) AS sends
                FROM gate_call c
                WHERE c.limit_name = ? AND c.owner = ? AND c.enqueued_at <= ?
                  AND (c.granted_at IS NULL OR c.granted_at > ?)
                  AND (c.granted_at IS NOT NULL OR c.done_at IS NULL OR c.done_at > ?)
                ORDER BY c.enqueued_at, c.id""")) {
            ps.setString(1, LIMIT);
            ps.setString(2, owner);
            ps.setObject(3, ts(at));
            ps.setObject(4, ts(at));
            ps.setObject(5, ts(at));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new DeadCall(rs.getLong("id"), rs.getString("state"), instant(rs, "enqueued_at"),
                            instant(rs, "granted_at"), instant(rs, "done_at"), instant(rs, "lease_expires_at"),
                            rs.getLong("sends")));
                }
            }
        }
        return out;
    }

    private record Send(Instant sentAt, Instant slotAt) {
    }

    private List<Send> sendsBetween(Instant after, Instant until) throws SQLException {
        List<Send> out = new ArrayList<>();
        try (Connection c = copies.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT sent_at, slot_at FROM gate_send WHERE limit_name = ? AND sent_at > ? AND sent_at <= ?
                ORDER BY sent_at, id""")) {
            ps.setString(1, LIMIT);
            ps.setObject(2, ts(after));
            ps.setObject(3, ts(until));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Send(instant(rs, "sent_at"), instant(rs, "slot_at")));
                }
            }
        }
        return out;
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return -1;
        }
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
