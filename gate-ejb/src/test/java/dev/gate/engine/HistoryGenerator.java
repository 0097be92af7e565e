package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.engine.History.Cancel;
import dev.gate.engine.History.Join;
import dev.gate.engine.History.LimitPlan;
import dev.gate.engine.History.MoreRule;
import dev.gate.engine.History.OperatorKind;
import dev.gate.engine.History.OperatorStep;
import dev.gate.engine.History.Quota;
import dev.gate.engine.History.Report;
import dev.gate.engine.History.ReportKind;
import dev.gate.engine.History.Sleep;
import dev.gate.engine.History.Step;
import dev.gate.engine.History.Try;
import dev.gate.rules.VendorZone;

import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Random histories from a seed: one or two limits of random rules and options, two to four programs of joins (both
 * ways in, every class, costs, deadlines, concurrency and dedupe keys, submissions sent twice), tries and cancels,
 * each grant reported one way or another (200, 429 with or without Retry-After, the vendor's count, abandoned, left to
 * lapse), and an operator who pauses, resumes, re-paces, re-declares, removes (and declares again), cancels and
 * drains, and makes faults. Limits take line bounds, minimum spacing and the adaptive rate now and then.
 */
final class HistoryGenerator {

    /** Every zone the gate accepts: the ids Java knows, offsets in its spellings, less those VendorZone refuses. */
    static final List<String> ZONES = zones();
    /** The fixed offsets among them written as offsets ({@code +05:00}, {@code UTC+05:00}, {@code GMT-08:00}, ...). */
    static final List<String> OFFSETS = ZONES.stream().filter(z -> z.matches("(UTC|GMT|UT)?[+-].*|Z")).toList();
    /** The fixed offsets among them written as zone names ({@code Etc/GMT-5}). */
    static final List<String> ETC = ZONES.stream().filter(z -> z.startsWith("Etc/")).toList();

    private static final long[] WINDOWS = {1000, 1500, 2000, 3000};
    /** The operator's steps drawn at random (a change of kind comes apart, last: see {@link #kind}). */
    private static final OperatorKind[] RANDOM_KINDS = {OperatorKind.PAUSE, OperatorKind.RESUME, OperatorKind.REPACE,
            OperatorKind.REDECLARE, OperatorKind.REMOVE, OperatorKind.CANCEL, OperatorKind.DRAIN, OperatorKind.CUT,
            OperatorKind.KILL};
    private static final long[] BLOCKS = {3_600_000, 6 * 3_600_000, 86_400_000};

    private HistoryGenerator() {
    }

    static History generate(long seed) {
        Random r = new Random(seed);
        List<LimitPlan> limits = new ArrayList<>();
        int limitCount = r.nextInt(3) == 0 ? 2 : 1;
        for (int i = 0; i < limitCount; i++) {
            limits.add(limit(r));
        }
        if (r.nextInt(3) == 0 && limits.get(0).calls() < 100_000) { // a keyed limit under the first: keys of a store
            LimitPlan keyed = new LimitPlan(1 + r.nextInt(3), WINDOWS[r.nextInt(WINDOWS.length)], 150 + r.nextInt(100),
                    0, false, false, 1000 + r.nextInt(2000), null, null, null, 0);
            limits.add(keyOptions(new Random(new java.util.SplittableRandom(~seed).nextLong()), keyed));
        }
        List<List<Step>> programs = new ArrayList<>();
        int programCount = 2 + r.nextInt(3);
        for (int p = 0; p < programCount; p++) {
            List<Step> steps = new ArrayList<>();
            int count = 3 + r.nextInt(6);
            for (int s = 0; s < count; s++) {
                steps.add(step(r, limits));
            }
            programs.add(steps);
        }
        List<OperatorStep> operator = new ArrayList<>();
        // which copy a fault strikes, drawn apart so that a seed's history keeps what it had before copy a was struck
        // (seeded through SplittableRandom's mix: Random's first draws of adjacent seeds go together, and a run of
        // seeds 95000 on struck copy a 26 times in 28)
        Random struck = new Random(new java.util.SplittableRandom(seed).nextLong());
        int ops = r.nextInt(4);
        long at = 0;
        for (int i = 0; i < ops; i++) {
            at += 300 + r.nextInt(1500);
            int limit = r.nextInt(limits.size());
            if (limits.get(limit).keyed()) {
                limit = limits.get(limit).keyedUnder(); // the operator acts on the parent: a keyed limit's keys follow it
            }
            OperatorKind kind = RANDOM_KINDS[r.nextInt(RANDOM_KINDS.length)];
            long arg = switch (kind) {
                case PAUSE -> 1000 + r.nextInt(1000);
                case REPACE -> 1 + r.nextInt(Math.min(limits.get(limit).calls() * 2, 20));
                case DRAIN -> r.nextInt(programCount);
                case CUT -> 300 + r.nextInt(2200);
                case KILL -> 200 + r.nextInt(1000);
                default -> 0;
            };
            operator.add(new OperatorStep(at, kind, limit, arg, kind == OperatorKind.CUT || kind == OperatorKind.KILL
                    ? struck.nextInt(2) : 1));
            if (kind == OperatorKind.REMOVE) { // and declared again (its programs go on calling it)
                at += 200 + r.nextInt(600);
                operator.add(new OperatorStep(at, OperatorKind.REDECLARE, limit, 0));
            }
        }
        kind(struck, limits, operator, at);
        return new History(seed, limits, programs, operator);
    }

    /**
     * Now and then the operator's last step changes a limit's kind, as the vendor's plan changed: a keyed limit made
     * plain, or the second plain limit made keyed under the first. Last, so that no step after it acts on the limit as
     * its plan declared it; drawn apart from the rest, so that a seed's history keeps what it had before.
     */
    private static void kind(Random r, List<LimitPlan> limits, List<OperatorStep> operator, long after) {
        if (r.nextInt(4) != 0) {
            return;
        }
        long at = after + 300 + r.nextInt(2000);
        for (int l = 0; l < limits.size(); l++) {
            if (limits.get(l).keyed()) {
                operator.add(new OperatorStep(at, OperatorKind.KIND, l, 0));
                return;
            }
        }
        if (limits.size() > 1 && limits.get(0).calls() < 100_000) { // L1 plain: keyed under L0 (not a bulk parent)
            operator.add(new OperatorStep(at, OperatorKind.KIND, 1, 1));
        }
    }

    /**
     * The options of a keyed limit, each key's as its template's, drawn apart (so that a seed's history keeps what it
     * had before keys took them): as a plain limit's, less the bulk rule and the costs (a key takes calls of one unit);
     * now and then a bound on its open keys (drawn last, so that the options drawn before it stay as they were).
     */
    private static LimitPlan keyOptions(Random r, LimitPlan keyed) {
        int calls = keyed.calls();
        long window = keyed.windowMs();
        int burst = r.nextInt(5) < 2 ? 1 + r.nextInt(Math.min(3, calls)) : 0;
        MoreRule more = r.nextInt(4) == 0 ? new MoreRule(calls + 1 + r.nextInt(3), window * (2 + r.nextInt(2))) : null;
        String aligned = r.nextInt(4) == 0 ? zone(r) : null;
        Quota quota = r.nextInt(5) == 0 ? new Quota(2 + r.nextInt(4), BLOCKS[r.nextInt(BLOCKS.length)], zone(r),
                1500 + r.nextInt(2500)) : null;
        boolean fair = r.nextInt(7) == 0;
        boolean aging = r.nextInt(7) == 0 && !fair;
        History.LineBound line = r.nextInt(5) == 0 ? new History.LineBound(1 + r.nextInt(3),
                r.nextBoolean() ? null : 1) : null;
        long spacing = r.nextInt(6) == 0 ? window / calls * (2 + r.nextInt(2)) : 0;
        boolean adaptive = r.nextInt(6) == 0;
        Integer maxKeys = r.nextInt(3) == 0 ? 1 + r.nextInt(2) : null; // fewer than the programs' three keys
        return new LimitPlan(calls, window, keyed.marginMs(), burst, fair, aging, keyed.maxCoolDownMs(), more, aligned,
                quota, keyed.keyedUnder(), line, spacing, adaptive, maxKeys);
    }

    private static LimitPlan limit(Random r) {
        boolean bulk = r.nextInt(10) == 0;
        int calls = bulk ? 100_000 + r.nextInt(900_000) : 2 + r.nextInt(7);
        long window = WINDOWS[r.nextInt(WINDOWS.length)];
        int burst = !bulk && r.nextInt(5) < 2 ? 1 + r.nextInt(Math.min(3, calls)) : 0;
        MoreRule more = !bulk && r.nextInt(4) == 0 ? new MoreRule(calls + 1 + r.nextInt(3), window * (2 + r.nextInt(2)))
                : null;
        String aligned = r.nextInt(4) == 0 ? zone(r) : null;
        Quota quota = !bulk && r.nextInt(4) == 0 ? new Quota(2 + r.nextInt(4), BLOCKS[r.nextInt(BLOCKS.length)],
                zone(r), 1500 + r.nextInt(2500)) : null;
        boolean fair = r.nextInt(7) == 0;
        boolean aging = r.nextInt(7) == 0 && !fair; // a limit takes one of the two orders, never both
        History.LineBound line = r.nextInt(5) == 0 ? new History.LineBound(1 + r.nextInt(3),
                r.nextBoolean() ? null : 1) : null;
        long spacing = !bulk && r.nextInt(6) == 0 ? window / calls * (2 + r.nextInt(2)) : 0; // wider than the beat
        boolean adaptive = r.nextInt(6) == 0;
        return new LimitPlan(calls, window, 150 + r.nextInt(100), burst, fair, aging, 1000 + r.nextInt(2000), more,
                aligned, quota, null, line, spacing, adaptive, null);
    }

    /** Each kind of zone as often: a region, an offset in one of Java's spellings, an Etc name. */
    private static String zone(Random r) {
        List<String> kind = List.of(ZONES, OFFSETS, ETC).get(r.nextInt(3));
        return kind.get(r.nextInt(kind.size()));
    }

    private static Step step(Random r, List<LimitPlan> limits) {
        int limit = r.nextInt(limits.size());
        LimitPlan plan = limits.get(limit);
        String key = plan.keyed() ? "store-" + r.nextInt(3) : null;
        CallClass callClass = CallClass.values()[r.nextInt(CallClass.values().length)];
        int roll = r.nextInt(100);
        if (roll < 22) {
            return new Sleep(50 + r.nextInt(550));
        }
        if (roll < 27 && r.nextInt(5) > 0) { // the account's quota, shared with a client the gate does not see
            LimitPlan account = plan.keyed() ? limits.get(plan.keyedUnder()) : plan;
            return new History.Elsewhere(limit, 1 + r.nextInt(Math.min(20, account.calls()))); // up to all of it
        }
        if (roll < 30) {
            return new Cancel(limit, key, callClass, 50 + r.nextInt(500));
        }
        // a keyed limit takes calls of one unit: now and then a costlier one, which it refuses
        int cost = plan.keyed() ? (r.nextInt(12) == 0 ? 2 : 1) : cost(r, plan);
        Report report = report(r, plan);
        if (roll < 45) {
            return new Try(limit, key, callClass, cost, r.nextInt(3) == 0,
                    report.kind() == ReportKind.LAPSE ? Report.OK : report);
        }
        boolean http = r.nextBoolean();
        Long deadline = r.nextInt(7) == 0 ? 300L + r.nextInt(2700) : null;
        String concurrencyKey = r.nextInt(7) == 0 ? "k" + r.nextInt(2) : null;
        String dedupeKey = http && !plan.keyed() && r.nextInt(10) == 0 ? "d" + r.nextInt(2) : null;
        boolean twice = http && r.nextInt(7) == 0;
        return new Join(limit, key, callClass, cost, http, deadline, concurrencyKey, dedupeKey, twice, report);
    }

    private static int cost(Random r, LimitPlan plan) {
        int smallest = plan.more() == null ? plan.calls() : Math.min(plan.calls(), plan.more().calls());
        if (plan.quota() != null) {
            smallest = Math.min(smallest, plan.quota().calls());
        }
        int roll = r.nextInt(100);
        if (roll < 80) {
            return 1;
        }
        if (plan.calls() >= 100_000 && roll < 90) { // a bulk call as large as the rule and the gate allow
            return 1 + r.nextInt(Math.min(smallest, dev.gate.rules.Cost.MOST));
        }
        return 1 + r.nextInt(Math.min(3, smallest));
    }

    private static Report report(Random r, LimitPlan plan) {
        int roll = r.nextInt(100); // the vendor answers; the program reads its answer as planned here
        if (roll < 55) {
            return Report.OK;
        }
        if (roll < 67) {
            Integer[] asks = {null, 1, 2, 30};
            return new Report(ReportKind.SLOW_DOWN, asks[r.nextInt(asks.length)], null, null, null);
        }
        if (roll < 80) { // the vendor's count, its quota read or not (the figures are the vendor's)
            return plan.keyed() && r.nextBoolean() ? new Report(ReportKind.ACCOUNT_COUNT, null, null, null, null)
                    : new Report(ReportKind.COUNT, null, 0, 1L, r.nextBoolean() ? null : 1);
        }
        if (roll < 90) {
            return new Report(ReportKind.ABANDON, null, null, null, null);
        }
        return new Report(ReportKind.LAPSE, null, null, null, null);
    }

    private static List<String> zones() {
        TreeSet<String> names = new TreeSet<>(ZoneId.getAvailableZoneIds());
        names.addAll(List.of("+05:00", "-08:00", "+05:30", "+05:45", "-03:30", "+14:00", "-12:00", "Z", "UTC+05:00",
                "GMT-08:00", "UT+01:00", "GMT+05:30", "Etc/GMT-5"));
        List<String> accepted = new ArrayList<>();
        for (String name : names) {
            try {
                VendorZone.of(ZoneId.of(name));
                accepted.add(name);
            } catch (IllegalArgumentException refused) {
                // CET, EET, MET, WET: the gate refuses them (its tests say why)
            }
        }
        return List.copyOf(accepted);
    }
}
