package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.engine.History.LimitPlan;
import dev.gate.engine.History.ReportKind;
import dev.gate.engine.HistoryRun.Act;
import dev.gate.dev.TcpProxy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The promise checker: random histories of operations on two gate copies sharing one real PostgreSQL, each checked
 * from what happened ({@link HistoryChecks}): no window of any rule over its calls, by the send log and at the vendor;
 * no grant while paused or held; higher class first and first come first served where the rules are strict; every
 * call ended once and as its caller was told; a resend with its key finds its call, a joiner shares its send; and
 * nobody locked out: once every pause and hold has ended by the rules, a try is granted (the lock-out probe).
 *
 * <p>{@code mvn verify} runs the fixed seeds of {@link #SUITE} ({@code -Dgate.histories=N} runs N random ones from
 * {@code -Dgate.histories.seed}; {@code -Dgate.history.seed=S} replays one; {@code -Dgate.histories.untilBroken=true}
 * stops at the first broken one: the power runs, a fix reverted, how many histories the checker needs to find it). A
 * failing history shrinks to a shorter one that still fails, printed as a readable sequence with its seed.
 */
class RandomHistoriesTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();
    private Copy a;
    private Copy b;

    @BeforeEach
    void twoCopiesEachBehindAProxy() throws Exception {
        a = new Copy("histories-a", copies.proxy());
        b = new Copy("histories-b", copies.proxy());
    }

    /** A copy: its database link through a proxy that a fault cuts; killed as a crash and started again. */
    private final class Copy implements HistoryRun.Copy {
        private final String name;
        private final TcpProxy proxy;
        private volatile Engine engine;
        private volatile String owner;
        private int started;
        private ScheduledThreadPoolExecutor scheduler;
        private com.zaxxer.hikari.HikariDataSource pool;
        private final java.util.Set<Engine> made = java.util.concurrent.ConcurrentHashMap.newKeySet();

        Copy(String name, TcpProxy proxy) {
            this.name = name;
            this.proxy = proxy;
            startAgain();
        }

        @Override
        public Engine engine() {
            return engine;
        }

        @Override
        public String owner() {
            return owner;
        }

        @Override
        public void cut(Duration length) throws Exception {
            proxy.cut();
            try {
                Thread.sleep(length.toMillis());
            } finally {
                proxy.restore();
            }
        }

        @Override
        public void kill() {
            engine.halt(); // as a crash: its timers and listener stop, its calls stay as they are
            engine.release();
            // and its connections close with it, as a dead process's do (kept open, each kill held a pool's worth
            // until the test's end: a long run ran out of the server's connections after 376 histories)
            pool.close();
            scheduler.shutdownNow();
        }

        @Override
        public void startAgain() {
            owner = name + (++started == 1 ? "" : "-" + started);
            scheduler = new ScheduledThreadPoolExecutor(2);
            pool = copies.poolThrough(proxy);
            engine = copies.start(owner, PRUNING, scheduler, pool);
            made.add(engine);
        }

        @Override
        public void pruneSends(String limit) throws Exception {
            copies.sql("""
                    DELETE FROM gate_send s USING gate_limit l, gate_slot k
                    WHERE s.limit_name = ? AND l.name = s.limit_name AND k.limit_name = l.name AND s.seq < k.send_seq
                      AND s.sent_at < now() - greatest(l.window_ms, l.min_interval_ms,
                              (SELECT coalesce(max(r.window_ms), 0) FROM gate_limit_rule r
                               WHERE r.limit_name = l.name)) * interval '1 millisecond'""", limit);
        }

        @Override
        public boolean made(Engine engine) {
            return made.contains(engine);
        }
    }

    /**
     * The suite's seeds: together they plan every feature ({@link HistoryFeaturesTest} holds them to it and names
     * new ones when the generator changes); long mode's randomness runs from {@code -Dgate.histories.seed}.
     */
    static final long[] SUITE = {44_980, 43_251, 43_645, 43_011, 43_000, 43_001, 43_002, 43_066};
    /**
     * And one history of each {@link HistoryShapes shape} (long mode runs one shape with {@code
     * -Dgate.histories.shape=NAME}, a replay of a shaped seed names its shape the same way).
     */
    static final long SHAPED_SEED = 1;
    /** The tests' timings, with finished calls kept only {@link HistoryChecks#RETENTION} and pruned twice a second. */
    private static final EngineSettings PRUNING = new EngineSettings(GateCopies.FAST.defaultLease(),
            GateCopies.FAST.minLease(), GateCopies.FAST.maxLease(), GateCopies.FAST.heartbeat(),
            GateCopies.FAST.waiterPoll(), GateCopies.FAST.idlePoll(), GateCopies.FAST.retry(),
            GateCopies.FAST.callerConcurrency(), GateCopies.FAST.callerWait(), HistoryChecks.RETENTION,
            java.time.Duration.ofMillis(500));
    private static final Duration LATENESS = Duration.ofMillis(400);
    private static final Duration PROBE_HORIZON = Duration.ofSeconds(20);

    @Test
    void everyHistoryKeepsTheFourPromises() throws Exception {
        String replay = System.getProperty("gate.history.seed");
        Integer count = Integer.getInteger("gate.histories");
        long first = Long.getLong("gate.histories.seed", 43_000L);
        String shape = System.getProperty("gate.histories.shape");
        List<Long> seeds = new ArrayList<>();
        List<String> shapes = new ArrayList<>(); // each seed's shape (null: a random history)
        if (replay != null) {
            seeds.add(Long.parseLong(replay));
            shapes.add(shape);
        } else if (count != null) {
            for (int i = 0; i < count; i++) {
                seeds.add(first + i);
                shapes.add(shape);
            }
        } else {
            java.util.Arrays.stream(SUITE).forEach(seeds::add);
            seeds.forEach(s -> shapes.add(null));
            for (String named : HistoryShapes.NAMES) {
                seeds.add(SHAPED_SEED);
                shapes.add(named);
            }
        }
        java.util.Map<String, Integer> ran = new java.util.HashMap<>();
        int steps = 0;
        long t0 = System.nanoTime();
        List<String> broken = new ArrayList<>(); // each failing history, shrunk; the run goes on to the next
        int runs = 0;
        for (int i = 0; i < seeds.size(); i++) {
            long seed = seeds.get(i);
            String named = shapes.get(i) == null ? "" : " (" + shapes.get(i) + ")";
            runs++;
            History history = shapes.get(i) == null ? HistoryGenerator.generate(seed)
                    : HistoryShapes.of(shapes.get(i), seed);
            List<String> found = check(history, ran);
            steps += history.steps();
            if (!found.isEmpty()) {
                System.out.println("history " + seed + named + " broke a promise:\n" + history
                        + String.join("\n", found));
                History shrunk = shrink(history);
                List<String> again = check(shrunk);
                String report = "history " + seed + named + " (the " + (i + 1) + "th run), shrunk:\n"
                        + shrunk + String.join("\n", again.isEmpty() ? found : again);
                System.out.println("BROKEN " + report);
                broken.add(report);
                if (Boolean.getBoolean("gate.histories.untilBroken")) {
                    break; // the power runs: how many histories it took to find a reverted fix
                }
            }
        }
        System.out.printf("histories: %d (%d steps) in %.0f s, %d broke a promise%n", runs, steps,
                (System.nanoTime() - t0) / 1e9, broken.size());
        System.out.println("| feature | histories that ran it |\n| --- | --- |");
        for (String feature : java.util.stream.Stream.concat(HistoryFeatures.PLANNED.stream(),
                HistoryFeatures.SEEN.stream()).toList()) {
            int n = ran.getOrDefault(feature, 0);
            System.out.printf("| %s | %d of %d (%.0f%%) |%n", feature, n, runs, 100.0 * n / runs);
        }
        if (!broken.isEmpty()) {
            fail(broken.size() + " of " + runs + " histories broke a promise:\n" + String.join("\n\n", broken));
        }
    }

    private static final java.util.Set<HistoryRun.Answer> REFUSALS = java.util.EnumSet.of(
            HistoryRun.Answer.UNKNOWN_LIMIT, HistoryRun.Answer.INVALID, HistoryRun.Answer.LINE_FULL,
            HistoryRun.Answer.KEYED, HistoryRun.Answer.KEY_REUSED, HistoryRun.Answer.FAILED);

    /**
     * The vendor is the judge: a gate told a rule the vendor's account does not have is caught, with no switch in the
     * gate's own code. Told one call more than the account allows, the vendor refuses the gate's own sending; told the
     * quota's zone an hour off, the gate starts a new day's block that the vendor has not, and sends it again.
     */
    @Test
    void aGateWrongAboutItsVendorIsCaught() throws Exception {
        History.LimitPlan three = new History.LimitPlan(3, 2000, 150, 0, false, false, 2000, null, null, null, null);
        List<History.Step> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            calls.add(new History.Join(0, null, CallClass.SCHEDULED, 1, i % 2 == 0, null, null, null, false,
                    History.Report.OK));
        }
        History oneMore = new History(1, List.of(three), List.of(calls, calls), List.of());
        List<String> found = check(oneMore, new HistoryRun(oneMore, a, b, rules -> List.of(
                rules.get(0).withCalls(2))));
        System.out.println("told one call more than the vendor allows: " + found);
        assertTrue(found.stream().anyMatch(f -> f.startsWith("the vendor refused")), String.valueOf(found));

        // a day's quota of 3 whose block ends 1.5 s into the history, as the gate is told; the vendor's day starts
        // at the same local time an hour earlier (its zone an hour east): its block goes on past the gate's edge
        // (a burst of 3: the beat of a day's 3 is 8 hours; a fresh limit, and a new block, may send its burst at once)
        History.LimitPlan daily = new History.LimitPlan(100, 1000, 150, 3, false, false, 2000, null, null,
                new History.Quota(3, 86_400_000L, "+00:00", 1500), null);
        List<History.Step> sixCalls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            sixCalls.add(new History.Join(0, null, CallClass.SCHEDULED, 1, false, null, null, null, false,
                    History.Report.OK));
        }
        History zoneOff = new History(2, List.of(daily), List.of(sixCalls), List.of());
        HistoryRun zoneRun = new HistoryRun(zoneOff, a, b, rules -> List.of(rules.get(0),
                HistoryVendor.Rule.blocks("quota", 3, 86_400_000L, java.time.ZoneOffset.ofHours(1),
                        rules.get(1).at())));
        found = check(zoneOff, zoneRun);
        System.out.println("told the quota's zone an hour off: " + found);
        assertTrue(found.stream().anyMatch(f -> f.startsWith("the vendor refused")), String.valueOf(found));
    }

    /** Runs a history, drains the line, probes each limit, and checks it; what broke. */
    private List<String> check(History history) throws Exception {
        return check(history, new java.util.HashMap<>());
    }

    /** As above, counting in {@code ran} each feature the history exercised. */
    private List<String> check(History history, java.util.Map<String, Integer> ran) throws Exception {
        bothCopiesUp();
        return check(history, new HistoryRun(history, a, b), ran);
    }

    /**
     * A history begins with both copies up: a cut of the one before may still be healing (its listener reconnects
     * after the link is back; long run seed 106088: a copy paused 2.7 s by the cut of the history before was read as
     * "paused with no fault made").
     */
    private void bothCopiesUp() throws InterruptedException {
        GateCopies.await("both copies up before a history", Duration.ofSeconds(30),
                () -> !a.engine().paused() && !b.engine().paused());
    }

    private List<String> check(History history, HistoryRun run) throws Exception {
        return check(history, run, new java.util.HashMap<>());
    }

    private List<String> check(History history, HistoryRun run, java.util.Map<String, Integer> ran)
            throws Exception {
        List<String> names = java.util.Arrays.asList(run.names);
        List<String> found;
        TableWatch watch = new TableWatch(copies, run.names,
                line -> names.indexOf(dev.gate.rules.LimitKey.templateOf(line)));
        try (watch) {
            run.run();
            found = new ArrayList<>(drain(run));
            found.addAll(probe(run));
        }
        found.addAll(HistoryChecks.of(run, watch));
        java.util.Set<String> exercised = new java.util.LinkedHashSet<>(HistoryFeatures.planned(history));
        exercised.addAll(HistoryFeatures.seen(run, List.copyOf(watch.calls().values())));
        exercised.forEach(f -> ran.merge(f, 1, Integer::sum));
        System.out.println("history " + history.seed() + " exercised: " + String.join(", ", exercised));
        System.out.println("history " + history.seed() + ": " + history.limits().size() + " limits, "
                + history.steps() + " steps; callers told " + run.told.stream().collect(java.util.stream.Collectors
                .groupingBy(HistoryRun.Told::answer, java.util.TreeMap::new, java.util.stream.Collectors.counting()))
                + ", the vendor received " + run.vendor.requests().stream().filter(q -> q.callId() >= 0).count()
                + " calls (refused " + run.vendor.requests().stream()
                .filter(q -> q.callId() >= 0 && q.answer().refused()).count() + "; another client's requests "
                + run.vendor.requests().stream().filter(q -> q.callId() < 0).count() + "), " + watch.gone().size()
                + " calls left the tables (retention, removal)" + (run.refusedLimits.isEmpty() ? ""
                : "; declarations refused: " + run.refusedLimits) + run.told.stream()
                .filter(t -> REFUSALS.contains(t.answer())).map(t -> t.answer() + " " + t.detail()).distinct()
                .limit(3).map(d -> "; refused: " + d).collect(java.util.stream.Collectors.joining())
                + (found.isEmpty() ? "" : "; " + found.size() + " broken"));
        return found;
    }

    /** Every call of the history ends: the programs are done, leases lapse, the line empties. */
    private List<String> drain(HistoryRun run) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() - until < 0) {
            if (copies.count("SELECT count(*) FROM gate_call WHERE split_part(limit_name, '~', 1) = ANY (?) "
                    + "AND state IN ('WAITING', 'GRANTED')", (Object) run.names) == 0) {
                return List.of();
            }
            Thread.sleep(200);
        }
        return List.of("calls still in the line 15 s after the history's programs ended: " + copies.ids(
                "SELECT id FROM gate_call WHERE split_part(limit_name, '~', 1) = ANY (?) "
                        + "AND state IN ('WAITING', 'GRANTED')",
                (Object) run.names));
    }

    /**
     * Nobody locked out: after every hold has ended by the rules (an operator's pause, a cool-down, a vendor's count
     * capped by the limit's maxCoolDown, a fault and the recovery after it) and when, by the rules on the send log, a
     * unit is due, a try is granted.
     */
    private List<String> probe(HistoryRun run) throws Exception {
        List<String> found = new ArrayList<>();
        for (int l = 0; l < run.names.length; l++) {
            int limit = l;
            if (run.refusedLimits.stream().anyMatch(r -> r.startsWith("L" + limit + ":"))
                    || run.everKeyed(l) || run.removedAtTheEnd(l)) {
                continue; // a keyed limit's keys are probed through their parent's line (and one made so, or plain)
            }
            LimitPlan plan = run.history.limits().get(l);
            Instant due = holdsEnd(run, l);
            Instant ruled = dueBySendLog(run, l);
            if (ruled.isAfter(due)) {
                due = ruled;
            }
            if (run.recoveredBy().isAfter(due)) { // a copy cut off may still be paused while it recovers
                due = run.recoveredBy();
            }
            if (due.isAfter(Instant.now().plus(PROBE_HORIZON))) {
                continue; // not due within the horizon (a quota used up until a far edge)
            }
            long wait = Duration.between(Instant.now(), due).toMillis() + 50;
            if (wait > 0) {
                Thread.sleep(wait);
            }
            Attempt tried;
            try {
                tried = b.engine().callers().tryNow(run.names[l], CallClass.SCHEDULED, "probe", CallOptions.NONE);
                long lateUntil = System.nanoTime() + LATENESS.toNanos();
                while (!tried.isGranted() && System.nanoTime() - lateUntil < 0) {
                    Thread.sleep(Math.max(10, Math.min(100, tried.retryAfter().toMillis())));
                    tried = b.engine().callers().tryNow(run.names[l], CallClass.SCHEDULED, "probe", CallOptions.NONE);
                }
            } catch (dev.gate.api.GateException e) {
                found.add("L" + l + " (" + plan + "): the lock-out probe's try was refused: " + e);
                continue;
            }
            if (!tried.isGranted()) {
                found.add("L" + l + " (" + plan + ") locked out: every hold ended and a unit was due by " + due
                        + ", yet a try at " + Instant.now() + " was told to retry after " + tried.retryAfter());
            } else {
                b.engine().callers().complete(tried.permit().callId(), "probe", 200, null, null, null, null);
            }
        }
        return found;
    }

    /** The latest end of a hold on the limit, as the rules bound it; a resume after a hold ends it. */
    private static Instant holdsEnd(HistoryRun run, int l) throws Exception {
        LimitPlan plan = run.history.limits().get(l);
        Instant end = Instant.now();
        Instant lastResume = run.acts.stream().filter(a -> a.step().limit() == l && a.done()
                && a.step().kind() == History.OperatorKind.RESUME).map(Act::ended).max(Instant::compareTo)
                .orElse(Instant.MIN);
        for (Act act : List.copyOf(run.acts)) {
            if (act.step().limit() == l && act.pausedUntil() != null && act.started().isAfter(lastResume)) {
                end = later(end, act.pausedUntil());
            }
        }
        long longestWindow = Math.max(plan.windowMs(), Math.max(plan.more() == null ? 0 : plan.more().windowMs(),
                plan.quota() == null ? 0 : plan.quota().blockMs()));
        for (HistoryRun.Reported r : List.copyOf(run.reported)) {
            boolean mine = r.limit() == l || r.account().contains("/") && Integer.valueOf(l).equals(run.parentOf(
                    r.limit())); // a key's 429 pauses its parent
            if (!mine || r.at().isBefore(lastResume)) {
                continue;
            }
            if (r.report().kind() == ReportKind.SLOW_DOWN) {
                long asked = r.report().retryAfterSeconds() == null ? 0 : r.report().retryAfterSeconds() * 1000L;
                long pause = Math.max(Math.min(asked, plan.maxCoolDownMs()),
                        HistoryRun.LADDER.get(HistoryRun.LADDER.size() - 1).toMillis());
                end = later(end, r.at().plusMillis(pause));
            } else if (r.report().kind() == ReportKind.COUNT) {
                long hold = Math.min(r.report().resetSeconds() * 1000, Math.min(plan.maxCoolDownMs(), longestWindow));
                end = later(end, r.at().plusMillis(hold));
            }
        }
        return end;
    }

    /**
     * When, by the rules on the send log alone, the limit's next unit is due: the beat, every window, every block.
     * Read once the operator's last change has settled: while one is under way the checks read the looser rule, and
     * a probe must wait for the stricter (seed 57025: a probe 20 ms after a re-pace from 8 calls to 1 read 8).
     */
    private Instant dueBySendLog(HistoryRun run, int l) throws Exception {
        Instant settled = run.acts.stream().map(Act::ended).max(Instant::compareTo).orElse(Instant.MIN)
                .plus(HistoryRun.SETTLING).plusMillis(1);
        return HistoryChecks.dueAt(run, l, HistoryChecks.sendsOf(copies, run.names[l]), later(Instant.now(), settled),
                1);
    }

    private static Instant later(Instant a, Instant b) {
        return b.isAfter(a) ? b : a;
    }

    /**
     * A shorter history that still breaks a promise: the operator, then whole programs, then single steps taken out,
     * each kept out while the history still breaks one (at most {@code gate.histories.shrinkRuns} runs).
     */
    private History shrink(History failing) throws Exception {
        History best = failing;
        int budget = Integer.getInteger("gate.histories.shrinkRuns", 40);
        if (!best.operator().isEmpty() && budget-- > 0) {
            History none = new History(best.seed(), best.limits(), best.programs(), List.of());
            if (!check(none).isEmpty()) {
                best = none;
            }
        }
        for (int p = best.programs().size() - 1; p >= 0 && budget > 0; p--) {
            if (best.programs().get(p).isEmpty()) {
                continue;
            }
            budget--;
            History fewer = best.withProgram(p, List.of());
            if (!check(fewer).isEmpty()) {
                best = fewer;
            }
        }
        for (int i = best.operator().size() - 1; i >= 0 && budget > 0; i--, budget--) {
            History fewer = best.withoutOperatorStep(i);
            if (!check(fewer).isEmpty()) {
                best = fewer;
            }
        }
        for (int p = 0; p < best.programs().size() && budget > 0; p++) {
            for (int i = best.programs().get(p).size() - 1; i >= 0 && budget > 0; i--, budget--) {
                History fewer = best.withoutStep(p, i);
                if (!check(fewer).isEmpty()) {
                    best = fewer;
                }
            }
        }
        return best;
    }
}
