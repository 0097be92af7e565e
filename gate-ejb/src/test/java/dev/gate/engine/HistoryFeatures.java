package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.engine.History.Cancel;
import dev.gate.engine.History.Elsewhere;
import dev.gate.engine.History.Join;
import dev.gate.engine.History.LimitPlan;
import dev.gate.engine.History.OperatorKind;
import dev.gate.engine.History.OperatorStep;
import dev.gate.engine.History.Report;
import dev.gate.engine.History.ReportKind;
import dev.gate.engine.History.Step;
import dev.gate.engine.History.Try;
import dev.gate.rules.LineSize;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a history exercises, by name: every option, step, report and operator action its plan holds ({@link #planned},
 * known from the seed alone), and what only its run shows ({@link #seen}: a refusal by the vendor, a count with units
 * left, a line found full). The suite's seeds are chosen so that together they plan every feature
 * ({@code HistoryFeaturesTest}); long mode prints the share of histories that ran each.
 */
final class HistoryFeatures {

    /** Every feature a plan can hold, in the order the table lists them. */
    static final List<String> PLANNED = planned();
    /** Every feature only a run shows. */
    static final List<String> SEEN = List.of("a vendor's refusal (another client's units)",
            "a count with units left", "a count of the parent's quota on a key", "a deadline refusal",
            "a line found full", "a key refused: its limit's keys full", "a wait timed out", "a call ended by the operator", "a call joined by dedupe",
            "a limit removed and declared again", "a call of a killed copy in the tables",
            "a waiting call's estimate read");

    private HistoryFeatures() {
    }

    private static List<String> planned() {
        List<String> all = new ArrayList<>(List.of("two limits", "a keyed limit under a parent",
                "options on a keyed limit", "burst",
                "a second sliding rule", "blocks in a zone", "a calendar quota", "fair programs",
                "the starvation guard", "bulk calls", "a line bound", "a line bound per program", "minimum spacing",
                "adaptive rate", "a bound on a keyed limit's open keys", "EJB join", "HTTP join", "try", "consuming try",
                "a consume with its key, sent again", "tries that meet (three at once)", "join and cancel",
                "another client's use", "cost above 1", "cost above 1 on a key (refused)", "a deadline",
                "a concurrency key", "a dedupe key", "sent twice, and again after its end", "calls on keys",
                "a program's backlog (joins at once)"));
        for (CallClass c : CallClass.values()) {
            all.add("class " + c);
        }
        all.addAll(List.of("report 200", "report 429 with Retry-After", "report 429 without Retry-After",
                "report the vendor's count", "report the count with its quota", "report the account's count on a key",
                "abandon", "let the lease lapse"));
        for (OperatorKind k : OperatorKind.values()) {
            if (k == OperatorKind.CUT || k == OperatorKind.KILL) {
                all.add("operator " + k.name().toLowerCase() + " copy a");
                all.add("operator " + k.name().toLowerCase() + " copy b");
            } else if (k == OperatorKind.KIND) {
                all.add("operator makes a keyed limit plain");
                all.add("operator makes a plain limit keyed");
            } else if (k == OperatorKind.RULE) {
                all.add("operator adds a rule learned late");
            } else {
                all.add("operator " + k.name().toLowerCase());
            }
        }
        all.add("operator acts on a parent");
        return List.copyOf(all);
    }

    /** The features a history's plan holds. */
    static Set<String> planned(History h) {
        Set<String> f = new LinkedHashSet<>();
        if (h.limits().stream().filter(l -> !l.keyed()).count() > 1) {
            f.add("two limits");
        }
        for (LimitPlan l : h.limits()) {
            add(f, l.keyed(), "a keyed limit under a parent");
            add(f, l.keyed() && (l.burst() > 0 || l.more() != null || l.alignedZone() != null || l.quota() != null
                    || l.fair() || l.aging() || l.line() != null || l.minIntervalMs() > 0 || l.adaptive()),
                    "options on a keyed limit");
            add(f, l.burst() > 0, "burst");
            add(f, l.more() != null, "a second sliding rule");
            add(f, l.alignedZone() != null, "blocks in a zone");
            add(f, l.quota() != null, "a calendar quota");
            add(f, l.fair(), "fair programs");
            add(f, l.aging(), "the starvation guard");
            add(f, l.calls() >= 100_000, "bulk calls");
            add(f, l.line() != null, "a line bound");
            add(f, l.line() != null && l.line().perProgram() != null, "a line bound per program");
            add(f, l.minIntervalMs() > 0, "minimum spacing");
            add(f, l.adaptive(), "adaptive rate");
            add(f, l.maxKeys() != null, "a bound on a keyed limit's open keys");
        }
        for (List<Step> program : h.programs()) {
            for (int at = 0; at < program.size(); at++) {
                Step s = program.get(at);
                if (s instanceof Join j) {
                    f.add(j.http() ? "HTTP join" : "EJB join");
                    call(f, h, j.limit(), j.key(), j.callClass(), j.cost());
                    add(f, j.deadlineMs() != null, "a deadline");
                    add(f, j.concurrencyKey() != null, "a concurrency key");
                    add(f, j.dedupeKey() != null, "a dedupe key");
                    add(f, j.sentTwice(), "sent twice, and again after its end");
                    report(f, j.report());
                } else if (s instanceof Try t) {
                    f.add(HistoryRun.consumedWithItsKey(t, at) ? "a consume with its key, sent again"
                            : t.consume() ? "consuming try" : "try");
                    add(f, HistoryRun.triesThatMeet(t, at), "tries that meet (three at once)");
                    call(f, h, t.limit(), t.key(), t.callClass(), t.cost());
                    if (!t.consume()) {
                        report(f, t.report());
                    }
                } else if (s instanceof Cancel c) {
                    f.add("join and cancel");
                    call(f, h, c.limit(), c.key(), c.callClass(), 1);
                } else if (s instanceof Elsewhere) {
                    f.add("another client's use");
                } else if (s instanceof History.Flood flood) {
                    f.add("a program's backlog (joins at once)");
                    f.add("HTTP join");
                    call(f, h, flood.join().limit(), flood.join().key(), flood.join().callClass(), flood.join().cost());
                    report(f, flood.join().report());
                }
            }
        }
        for (OperatorStep o : h.operator()) {
            if (o.kind() == OperatorKind.KIND) {
                f.add(o.arg() == 0 ? "operator makes a keyed limit plain" : "operator makes a plain limit keyed");
            } else if (o.kind() == OperatorKind.RULE) {
                f.add("operator adds a rule learned late");
            } else {
                f.add("operator " + o.kind().name().toLowerCase() + (o.kind() == OperatorKind.CUT
                        || o.kind() == OperatorKind.KILL ? " copy " + o.copyName() : ""));
            }
            int limit = o.limit();
            add(f, h.limits().stream().anyMatch(l -> l.keyed() && l.keyedUnder() == limit),
                    "operator acts on a parent");
        }
        return f;
    }

    private static void call(Set<String> f, History h, int limit, String key, CallClass callClass, int cost) {
        f.add("class " + callClass);
        add(f, key != null, "calls on keys");
        add(f, cost > 1 && !h.limits().get(limit).keyed(), "cost above 1");
        add(f, cost > 1 && h.limits().get(limit).keyed(), "cost above 1 on a key (refused)");
    }

    private static void report(Set<String> f, Report r) {
        switch (r.kind()) {
            case OK -> f.add("report 200");
            case SLOW_DOWN -> f.add(r.retryAfterSeconds() == null ? "report 429 without Retry-After"
                    : "report 429 with Retry-After");
            case COUNT -> f.add(r.quota() == null ? "report the vendor's count" : "report the count with its quota");
            case ACCOUNT_COUNT -> f.add("report the account's count on a key");
            case ABANDON -> f.add("abandon");
            case LAPSE -> f.add("let the lease lapse");
        }
    }

    private static void add(Set<String> f, boolean when, String feature) {
        if (when) {
            f.add(feature);
        }
    }

    /** The features only the shaped histories plan (the random generator never does). */
    static final Set<String> SHAPED_ONLY = Set.of("a program's backlog (joins at once)",
            "operator adds a rule learned late");

    /**
     * Seeds from {@code first} on whose plans together hold every feature the generator plans, taken greedily (each
     * seed of the next {@code tries} that adds the most); for the suite's list when the generator changes.
     */
    static List<Long> covering(long first, int tries) {
        Set<String> missing = new LinkedHashSet<>(PLANNED);
        missing.removeAll(SHAPED_ONLY);
        List<Long> chosen = new ArrayList<>();
        while (!missing.isEmpty()) {
            long best = -1;
            int most = 0;
            for (long seed = first; seed < first + tries; seed++) {
                Set<String> adds = new LinkedHashSet<>(planned(HistoryGenerator.generate(seed)));
                adds.retainAll(missing);
                if (adds.size() > most) {
                    most = adds.size();
                    best = seed;
                }
            }
            if (best < 0) {
                throw new IllegalStateException("no seed of " + tries + " plans " + missing);
            }
            chosen.add(best);
            missing.removeAll(planned(HistoryGenerator.generate(best)));
        }
        return chosen;
    }

    /** What the run showed, beyond its plan. */
    static Set<String> seen(HistoryRun run, List<HistoryChecks.Call> calls) {
        Set<String> f = new TreeSet<>();
        add(f, run.vendor.requests().stream().anyMatch(q -> q.callId() >= 0 && q.answer().refused()),
                "a vendor's refusal (another client's units)");
        for (HistoryRun.Reported r : List.copyOf(run.reported)) {
            if (r.report().kind() != ReportKind.COUNT) {
                continue;
            }
            add(f, r.report().remaining() != null && r.report().remaining() > 0, "a count with units left");
            LimitPlan plan = run.history.limits().get(r.limit());
            add(f, plan.keyed() && r.report().quota() != null && r.report().quota() != plan.calls(),
                    "a count of the parent's quota on a key");
        }
        for (HistoryRun.Told t : List.copyOf(run.told)) {
            add(f, t.answer() == HistoryRun.Answer.DEADLINE, "a deadline refusal");
            add(f, t.answer() == HistoryRun.Answer.LINE_FULL && !t.detail().contains(LineSize.Cap.KEYS.why()),
                    "a line found full");
            add(f, t.answer() == HistoryRun.Answer.LINE_FULL && t.detail().contains(LineSize.Cap.KEYS.why()),
                    "a key refused: its limit's keys full");
            add(f, t.answer() == HistoryRun.Answer.TIMED_OUT, "a wait timed out");
            add(f, t.answer() == HistoryRun.Answer.JOINED, "a call joined by dedupe");
        }
        add(f, run.acts.stream().anyMatch(a -> a.done() && a.step().kind() == OperatorKind.CANCEL),
                "a call ended by the operator");
        for (int l = 0; l < run.names.length; l++) {
            int limit = l;
            add(f, !run.removals(l).isEmpty() && run.acts.stream().anyMatch(a -> a.done() && a.step().limit() == limit
                    && a.step().kind() == OperatorKind.REDECLARE), "a limit removed and declared again");
        }
        add(f, !run.estimates.isEmpty(), "a waiting call's estimate read");
        add(f, run.faults.stream().anyMatch(x -> x.kind() == OperatorKind.KILL
                && calls.stream().anyMatch(c -> c.owner().equals(x.struck()))), "a call of a killed copy in the tables");
        return f;
    }
}
