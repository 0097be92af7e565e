package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.KeyedLimitException;
import dev.gate.api.LimitSpec;
import dev.gate.api.LimitStatus;
import dev.gate.api.UnknownLimitException;
import dev.gate.rules.LimitKey;
import dev.gate.store.IdleKeys;
import dev.gate.store.StaleKeys;
import dev.gate.store.Tx;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keyed limits on the real clock and a real database: each key has its own line and beat under the template's rules,
 * opened by its first call; a keyed limit takes only calls with a key; keys stay out of the limits' list (counted
 * under their template) and go once idle, with nothing of them left behind.
 */
class KeyedLimitsTest extends OnOneCopy {

    private static final CallOptions USER_1 = CallOptions.NONE.withLimitKey("user-1");
    private static final CallOptions USER_2 = CallOptions.NONE.withLimitKey("user-2");

    @Test
    void eachKeyHasItsOwnLineAndBeat() throws Exception {
        gate.limits().put("user-api", LimitSpec.of(5, Duration.ofSeconds(1)).withKeyed(true));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(submit("user-api", USER_1));
            ids.add(submit("user-api", USER_2));
        }
        GateCopies.await("all twenty granted", Duration.ofSeconds(15), () -> ids.stream().allMatch(
                id -> copies.state(id).equals("GRANTED")));
        List<Instant> one = copies.sends("user-api~user-1");
        List<Instant> two = copies.sends("user-api~user-2");
        assertEquals(10, one.size());
        assertEquals(10, two.size());
        // each key holds the template's 5 per second...
        assertEquals(5, GateCopies.fullestWindow(one, Duration.ofSeconds(1)), "key user-1");
        assertEquals(5, GateCopies.fullestWindow(two, Duration.ofSeconds(1)), "key user-2");
        // ...and neither waits for the other: together they send twice the template's rate
        List<Instant> both = new ArrayList<>(one);
        both.addAll(two);
        both.sort(null);
        assertTrue(GateCopies.fullestWindow(both, Duration.ofSeconds(1)) >= 9,
                "two keys, two lines: " + GateCopies.fullestWindow(both, Duration.ofSeconds(1)));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = 'user-api'"),
                "the template itself sends nothing");
    }

    @Test
    void aKeyedLimitTakesOnlyCallsWithAKeyAndNoOtherLimitTakesOne() throws Exception {
        gate.limits().put("user-api", LimitSpec.of(5, Duration.ofSeconds(1)).withKeyed(true));
        gate.limits().put("vendor", LimitSpec.of(5, Duration.ofSeconds(1)));
        KeyedLimitException noKey = assertThrows(KeyedLimitException.class, () -> submit("user-api", CallOptions.NONE));
        assertTrue(noKey.getMessage().contains("is keyed"), noKey.getMessage());
        KeyedLimitException tryNoKey = assertThrows(KeyedLimitException.class, () -> gate.programs().tryNow("p",
                "user-api", CallClass.INTERACTIVE, CallOptions.NONE, null));
        assertTrue(tryNoKey.getMessage().contains("is keyed"), tryNoKey.getMessage());
        KeyedLimitException notKeyed = assertThrows(KeyedLimitException.class, () -> submit("vendor", USER_1));
        assertTrue(notKeyed.getMessage().contains("not keyed"), notKeyed.getMessage());
        assertThrows(UnknownLimitException.class, () -> submit("nobody", USER_1));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call"), "nothing joined any line");
        assertEquals(2, copies.count("SELECT count(*) FROM gate_limit"), "no key was opened");

        // a try with a key takes its key's slot; a key of any characters has a name of its own
        assertTrue(gate.programs().tryNow("p", "user-api", CallClass.INTERACTIVE, USER_1, null).attempt().isGranted());
        String odd = "shop/Ünïcode key with spaces and a very long tail to make it longer than the name can hold";
        long id = submit("user-api", CallOptions.NONE.withLimitKey(odd));
        String line = new LimitKey("user-api", odd).limitName();
        assertTrue(line.startsWith("user-api~="), line);
        assertEquals(line, gate.programs().own("p", id).orElseThrow().limit());
    }

    @Test
    void keysStayOutOfTheListAndCountUnderTheirTemplate() throws Exception {
        gate.limits().put("user-api", LimitSpec.of(1, Duration.ofMinutes(1)).withKeyed(true));
        submit("user-api", USER_1);
        submit("user-api", USER_1); // waits: one a minute
        submit("user-api", USER_2);
        submit("user-api", USER_2); // waits
        submit("user-api", CallOptions.NONE.withLimitKey("user-3"));
        List<LimitStatus> all = gate.limits().status();
        assertEquals(List.of("user-api"), all.stream().map(LimitStatus::getName).toList(), "keys are not limits");
        LimitStatus template = gate.limits().status("user-api").orElseThrow();
        assertEquals(3L, template.getOpenKeys());
        assertEquals(2L, template.getWaiting().get("SCHEDULED"), "the keys' waiting calls, together");
        assertEquals(3L, all.get(0).getOpenKeys());
        assertEquals(2L, all.get(0).getWaiting().get("SCHEDULED"));

        // the template's change reaches its keys (their copies of its rules), with their lines and beats kept (as a
        // limit's own change keeps its beat: the next slot stays where the old rule put it)
        gate.limits().put("user-api", LimitSpec.of(100, Duration.ofSeconds(1)).withKeyed(true)
                .withMoreRules(List.of(new LimitSpec.Rule(1_000, Duration.ofMinutes(1)))));
        assertEquals(3, copies.count("SELECT count(*) FROM gate_limit WHERE template_name = 'user-api' "
                + "AND calls = 100 AND window_ms = 1000"));
        assertEquals(3, copies.count("SELECT count(*) FROM gate_limit_rule WHERE limit_name LIKE 'user-api~%' "
                + "AND calls = 1000"));
        assertEquals(2, copies.count("SELECT count(*) FROM gate_call WHERE state = 'WAITING'"), "lines kept");
    }

    @Test
    void aChangeItsKeysMissedReachesThemThroughTheHousekeeping() throws Exception {
        gate.limits().put("user-api", LimitSpec.of(1, Duration.ofMinutes(1)).withKeyed(true));
        submit("user-api", USER_1);
        submit("user-api", USER_2);
        String followed = "SELECT count(*) FROM gate_limit WHERE template_name = 'user-api' AND calls = %d "
                + "AND window_ms = %d";
        // a stalled transaction holds a key's row: the template's change commits, and its keys' follow after it
        // waits for the lock and gives up. The operator still hears that the change was made
        try (java.sql.Connection stalled = copies.connect()) {
            stalled.setAutoCommit(false);
            try (java.sql.Statement s = stalled.createStatement()) {
                s.execute("SELECT 1 FROM gate_limit WHERE name = 'user-api~user-1' FOR UPDATE");
            }
            gate.limits().put("user-api", LimitSpec.of(100, Duration.ofSeconds(1)).withKeyed(true)
                    .withMoreRules(List.of(new LimitSpec.Rule(1_000, Duration.ofMinutes(1)))));
            assertEquals(100, gate.limits().status("user-api").orElseThrow().getCalls());
            assertEquals(0, copies.count(followed.formatted(100, 1_000)), "no key took it yet");
            stalled.rollback();
        }
        // a copy whose housekeeping runs every 200 ms finds the keys older than their template
        copies.start("housekeeper", GateCopies.FAST.withRetention(Duration.ofDays(7), Duration.ofMillis(200)),
                new java.util.concurrent.ScheduledThreadPoolExecutor(2));
        GateCopies.await("both keys took the change", Duration.ofSeconds(10),
                () -> count(followed.formatted(100, 1_000)) == 2
                        && count("SELECT count(*) FROM gate_limit_rule WHERE limit_name LIKE 'user-api~%' "
                        + "AND calls = 1000") == 2);
        // a change committed just before the database was lost (as its follow never ran)
        copies.sql("UPDATE gate_limit SET calls = 7, updated_at = clock_timestamp() WHERE name = 'user-api'");
        GateCopies.await("both keys took the change", Duration.ofSeconds(10),
                () -> count(followed.formatted(7, 1_000)) == 2);
        assertEquals(2, copies.count("SELECT count(*) FROM gate_call WHERE state IN ('WAITING', 'GRANTED')"),
                "the keys' lines kept");
        // a change made before the database's clock stepped back (its time is ahead of now): its follow reaches
        // each key once and ends, and no key looks older than its template afterwards
        copies.sql("UPDATE gate_limit SET calls = 9, updated_at = clock_timestamp() + interval '1 hour' "
                + "WHERE name = 'user-api'");
        StaleKeys keys = new StaleKeys(new Tx(copies.pool(1)));
        assertEquals(2, org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> keys.follow("user-api")));
        assertEquals(2, copies.count(followed.formatted(9, 1_000)));
        assertTrue(keys.missed().isEmpty(), "no key looks older than its template");
    }

    @Test
    void anIdleKeyGoesWithAllOfItsRowsButNotWhileItsWindowHoldsSends() throws Exception {
        gate.limits().put("user-api", LimitSpec.of(2, Duration.ofSeconds(1)).withKeyed(true));
        IdleKeys keys = new IdleKeys(new Tx(copies.pool(2)));
        long a = submit("user-api", USER_1);
        long b = submit("user-api", USER_1);
        GateCopies.await("both granted", Duration.ofSeconds(5), () -> copies.state(b).equals("GRANTED"));
        assertTrue(keys.sweep(Duration.ZERO, 100).removed().isEmpty(), "granted calls keep their key");
        gate.programs().outcome("p", a, 200, null);
        gate.programs().outcome("p", b, 200, null);
        assertTrue(keys.sweep(Duration.ZERO, 100).removed().isEmpty(), "its window still holds its two sends");
        // the window holds: a third call on the key waits for it, the key was not made anew
        long c = submit("user-api", USER_1);
        assertEquals("WAITING", copies.state(c));
        GateCopies.await("the third granted", Duration.ofSeconds(5), () -> copies.state(c).equals("GRANTED"));
        assertTrue(GateCopies.fullestWindow(copies.sends("user-api~user-1"), Duration.ofSeconds(1)) <= 2);
        gate.programs().outcome("p", c, 200, null);
        GateCopies.await("the key is removed once idle (its window and the margin passed)", Duration.ofSeconds(10),
                () -> sweep(keys) > 0);
        for (String table : List.of("gate_limit WHERE template_name IS NOT NULL",
                "gate_slot WHERE limit_name LIKE 'user-api~%'", "gate_send WHERE limit_name LIKE 'user-api~%'",
                "gate_call")) {
            assertEquals(0, copies.count("SELECT count(*) FROM " + table), table);
        }
        assertEquals(0L, gate.limits().status("user-api").orElseThrow().getOpenKeys());
    }

    private static final int ROUNDS = Integer.getInteger("keys.rounds", 5);

    @Test
    void tenThousandKeysComeAndGoWithoutTableGrowth() throws Exception {
        int keysPerRound = Integer.getInteger("keys.perRound", 2_000);
        gate.limits().put("tenant-api", LimitSpec.of(100, Duration.ofMillis(500)).withKeyed(true)
                .withReceiptMargin(Duration.ofMillis(1)));
        IdleKeys keys = new IdleKeys(new Tx(copies.pool(2)));
        Map<String, Long> bound = new java.util.HashMap<>();
        for (int round = 0; round < ROUNDS; round++) {
            long started = System.nanoTime();
            callEachKeyOnce("r" + round + "-", keysPerRound);
            long called = System.nanoTime();
            Map<String, Long> loaded = sizes(); // with this round's keys, calls and sends in the tables
            assertEquals(keysPerRound, copies.count("SELECT count(*) FROM gate_limit WHERE template_name IS NOT NULL"));
            Thread.sleep(600); // the keys' windows (500 ms) pass: no send of theirs is counted any more
            int removed = 0;
            for (boolean more = true; more; ) {
                IdleKeys.Swept swept = keys.sweep(Duration.ZERO, 500);
                removed += swept.removed().size();
                more = swept.looked() > 0 && (!swept.removed().isEmpty() || swept.history() > 0);
            }
            long gone = System.nanoTime();
            assertEquals(keysPerRound, removed);
            for (String table : List.of("gate_limit", "gate_slot", "gate_send", "gate_call", "gate_limit_rule")) {
                assertEquals(table.equals("gate_limit") || table.equals("gate_slot") ? 1 : 0,
                        copies.count("SELECT count(*) FROM " + table), table + ": only the template is left");
            }
            copies.sql("VACUUM gate_limit, gate_slot, gate_send, gate_call");
            Map<String, Long> sizes = sizes();
            System.out.printf("keyed round %d: %d keys opened, called and granted in %d ms, removed in %d ms; "
                            + "table sizes after vacuum %s%n", round, keysPerRound, (called - started) / 1_000_000,
                    (gone - called) / 1_000_000 - 600, sizes);
            // rounds 1 and 2 size the tables and their indexes: what one round's rows take (a vacuum gives a table's
            // emptied end back only when it gets the lock for it), and b-tree pages emptied by one round come back
            // into use only after a later vacuum. From then on each round uses the space the earlier ones left: a
            // table or index that kept growing (keys or calls left behind, space not reused) fails here
            if (round == 1 || round == 2) {
                for (Map.Entry<String, Long> e : sizes.entrySet()) {
                    bound.merge(e.getKey(), e.getValue(), Math::max);
                }
                if (round == 1) {
                    loaded.forEach((table, size) -> bound.merge(table, size, Math::max));
                }
            }
            if (round >= 3) {
                for (Map.Entry<String, Long> e : sizes.entrySet()) {
                    long base = bound.get(e.getKey());
                    assertTrue(e.getValue() <= base * 3 / 2 + 65_536,
                            e.getKey() + " grew from " + base + " to " + e.getValue());
                }
            }
        }
    }

    /** Each key's call joins (its key opened), is granted at once and done, from eight threads. */
    @Test
    void manyProgramsCallingANewKeyAtOnceAllJoinItsOneLine() throws Exception {
        gate.limits().put("burst-store", LimitSpec.of(100, Duration.ofSeconds(1)).withKeyed(true));
        int rounds = 10;
        int callers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            for (int round = 0; round < rounds; round++) {
                CallOptions key = CallOptions.NONE.withLimitKey("new-" + round);
                java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(callers);
                List<Future<Long>> calls = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    calls.add(pool.submit(() -> {
                        together.await();
                        return gate.programs().submit("p", "burst-store", CallClass.SCHEDULED, key, null).call().id();
                    }));
                }
                for (Future<Long> call : calls) {
                    call.get(); // each first call of the key joins: none hears "not keyed"
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(rounds, copies.count("SELECT count(*) FROM gate_limit WHERE template_name = 'burst-store'"),
                "one line per key");
        assertEquals(rounds * callers, copies.count("SELECT count(*) FROM gate_call WHERE limit_name LIKE 'burst-store~%'"));
    }

    private void callEachKeyOnce(String prefix, int keys) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int first = t;
                done.add(pool.submit(() -> {
                    for (int k = first; k < keys; k += 8) {
                        var call = gate.programs().submit("p", "tenant-api", CallClass.SCHEDULED,
                                CallOptions.NONE.withLimitKey(prefix + k), null).call();
                        long id = call.id();
                        if (call.state() != dev.gate.api.CallState.GRANTED) { // a new key's slot is due: at once
                            GateCopies.await("granted", Duration.ofSeconds(10),
                                    () -> copies.state(id).equals("GRANTED"));
                        }
                        gate.programs().outcome("p", id, 200, null);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private Map<String, Long> sizes() throws Exception {
        Map<String, Long> out = new java.util.TreeMap<>();
        for (String table : List.of("gate_limit", "gate_slot", "gate_send", "gate_call")) {
            out.put(table, copies.count("SELECT pg_relation_size(?::regclass)", table));
            out.put(table + " indexes", copies.count("SELECT pg_indexes_size(?::regclass)", table));
        }
        return out;
    }

    private int sweep(IdleKeys keys) {
        try {
            return keys.sweep(Duration.ZERO, 100).removed().size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private long submit(String limit, CallOptions options) throws Exception {
        return gate.programs().submit("p", limit, CallClass.SCHEDULED, options, null).call().id();
    }

    private long count(String sql) {
        try {
            return copies.count(sql);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
