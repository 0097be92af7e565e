package dev.gate.engine;

import dev.gate.dev.GateDatabase;
import dev.gate.engine.History.LimitPlan;
import dev.gate.engine.History.ReportKind;
import dev.gate.engine.HistoryRun.Act;
import dev.gate.engine.HistoryRun.Answer;
import dev.gate.engine.HistoryRun.Told;
import dev.gate.rules.LineSize;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The four promises, checked from what happened in a {@link HistoryRun}: what each caller was told, the send log, the
 * vendor's receipts and the final tables. Each check returns what it found wrong, in words (empty: kept).
 */
final class HistoryChecks {

    /** How far apart two clock reads of one moment may be (a statement's time, the moment its caller heard). */
    private static final Duration SLACK = Duration.ofMillis(20);
    /**
     * How long after its grant's stamp a grant may commit (a bulk call's units are as many rows): a read that met the
     * call waiting may come this long after the stamp of a grant it did not see.
     */
    private static final Duration COMMIT_LAG = Duration.ofMillis(500);
    /** A call must have waited this long before another's grant to count as waiting then (commits race). */
    private static final Duration SETTLED = Duration.ofMillis(150);

    /** A call as the tables hold it at the end. */
    record Call(long id, int limit, String line, int rank, String program, String owner, String state, Instant enqueued, Instant granted,
                Instant done, Integer status, Instant deadline, String concurrencyKey, String dedupeKey,
                String submissionKey, int cost, boolean aged) {

        Instant leftWaiting() {
            return granted != null ? granted : done;
        }
    }

    /** A unit in the send log. */
    record Send(int limit, long callId, Instant sentAt, Instant slotAt, long seq) {
    }

    private final HistoryRun run;
    private final Map<Long, Call> calls = new HashMap<>();
    /** The send log of each line: a limit's, or a key's of a keyed limit (by the key's limit name). */
    private final Map<String, List<Send>> sends = new java.util.TreeMap<>();
    private final List<String> found = new ArrayList<>();
    /** Calls whose end no table holds: their limit was removed with them before the watch read how they ended. */
    private final java.util.Set<Long> endUnknown = new java.util.HashSet<>();

    private HistoryChecks(HistoryRun run) {
        this.run = run;
    }

    /** Every promise checked, from the run and what its tables held (the watch's); what was found wrong. */
    static List<String> of(HistoryRun run, TableWatch watch) {
        HistoryChecks checks = new HistoryChecks(run);
        checks.calls.putAll(watch.calls());
        checks.sends.putAll(watch.sends());
        checks.prunedOnlyWhenDoneAndOld(watch.gone());
        checks.found.addAll(run.broken);
        checks.everyCallEndedOnceAndAsItsCallerWasTold();
        checks.theVendorNeverRefusedTheGatesOwnSending();
        checks.noGrantBeforeItsEstimate();
        checks.noEstimateLaterThanTheRules();
        for (Map.Entry<String, List<Send>> line : checks.sends.entrySet()) {
            int l = checks.limitOf(line.getKey());
            checks.noWindowOverItsCalls(line.getKey(), l);
            checks.noGrantWhilePausedOrHeld(line.getKey(), l);
            checks.noTwoSendsCloserThanTheSpacing(line.getKey(), l);
            checks.higherClassFirstAndFirstComeFirstServed(line.getKey(), run.history.limits().get(l));
        }
        for (int l = 0; l < run.names.length; l++) {
            final int limit = l;
            if (run.refusedLimits.stream().noneMatch(r -> r.startsWith("L" + limit + ":"))) {
                checks.nobodyLockedOut(l);
            }
        }
        return checks.found;
    }

    /** The limit (its plan's index) a line is of: the limit's own, or a key's template. */
    private int limitOf(String line) {
        String template = dev.gate.rules.LimitKey.templateOf(line);
        return java.util.Arrays.asList(run.names).indexOf(template);
    }

    /**
     * A waiting call's estimate errs only late, and its position counts only calls that go first: a call is not
     * granted before the estimate its program read, nor before as many calls of its line as its position said were
     * ahead were granted. Judged where nothing could bring its grant forward after the read: no call of its line that
     * waited then left it ungranted, no operator step or fault, no vendor's count reported on its limit or its
     * parent, and neither the adaptive rate nor the starvation guard on it.
     */
    private void noGrantBeforeItsEstimate() {
        for (HistoryRun.Estimated e : List.copyOf(run.estimates)) {
            Call call = calls.get(e.callId());
            LimitPlan plan = run.history.limits().get(e.limit());
            if (call == null || call.granted() == null || endUnknown.contains(call.id()) || plan.adaptive()
                    || plan.aging()) {
                continue;
            }
            Instant read = e.estimate().now();
            Instant granted = call.granted();
            if (granted.isBefore(read)) {
                // stamped when its grant's statement ran, committed later (a bulk call's units are many rows): the
                // read's snapshot may come between the two (seed 95062: granted 20 ms before the read that said
                // waiting)
                continue;
            }
            Integer parent = run.parentOf(e.limit());
            boolean forward = run.faults.stream().anyMatch(f -> f.from().isBefore(granted)
                    && f.until().plusSeconds(4).isAfter(read))
                    || run.acts.stream().anyMatch(a -> a.started().isBefore(granted.plus(SLACK))
                    && a.ended().plusMillis(200).isAfter(read))
                    || run.reported.stream().anyMatch(r -> (r.limit() == e.limit() || parent != null
                    && r.limit() == parent) && r.report().kind() == ReportKind.COUNT
                    && r.sent().isBefore(granted.plus(SLACK)) && r.at().plus(SETTLED).isAfter(read))
                    || calls.values().stream().anyMatch(c -> c.line().equals(call.line()) && c.granted() == null
                    && (endUnknown.contains(c.id()) || c.enqueued().isBefore(read.plus(SETTLED))
                    && (c.done() == null || c.done().isAfter(read.minus(SETTLED))
                    && c.done().isBefore(granted.plus(SETTLED)))));
            if (forward) {
                continue;
            }
            if (granted.isBefore(e.estimate().grantAt().minus(SLACK))) {
                found.add("call " + call.id() + " (L" + e.limit() + ", " + call.line() + ") granted at " + granted
                        + ", before its estimate: at " + read + " it read position " + e.estimate().position()
                        + ", granted at the earliest at " + e.estimate().grantAt());
            }
            long before = calls.values().stream().filter(c -> c.line().equals(call.line()) && c.id() != call.id()
                    && c.granted() != null && c.granted().isAfter(read.minus(COMMIT_LAG))
                    && !c.granted().isAfter(granted.plus(SLACK))).count();
            if (before < e.estimate().position()) {
                found.add("call " + call.id() + " (L" + e.limit() + ", " + call.line() + ") read position "
                        + e.estimate().position() + " at " + read + ", and only " + before + " calls of its line were"
                        + " granted before it, at " + granted);
            }
        }
    }

    /**
     * A waiting call's estimate errs early only so far: it is never later than the latest the rules let it go after
     * the calls then waiting that may go first ({@link #latestGrant}), nor does its position count more calls than
     * those. Judged on a plain limit's line (no keys under it) where nothing could hold it around the read: no pause or
     * hold, no fault, no operator step under way; not for a call with a concurrency key (its holder's end is unknown).
     */
    private void noEstimateLaterThanTheRules() {
        for (HistoryRun.Estimated e : List.copyOf(run.estimates)) {
            Call call = calls.get(e.callId());
            int l = e.limit();
            if (call == null || endUnknown.contains(call.id()) || call.concurrencyKey() != null || run.everKeyed(l)
                    || run.everParent(l)) {
                continue;
            }
            Instant read = e.estimate().now();
            Instant estimate = e.estimate().grantAt();
            boolean held = holdsAtMost(l).stream().anyMatch(h -> h.from().isBefore(read.plus(SLACK))
                    && h.until().plus(SLACK).isAfter(read));
            boolean changing = faultMayExplain(read.minusSeconds(1), read)
                    || run.acts.stream().anyMatch(a -> a.step().limit() == l && a.started().isBefore(read.plusMillis(200))
                    && a.ended().plusMillis(200).isAfter(read));
            if (held || changing) {
                continue;
            }
            Ahead latest = latestGrant(l, read, read, call.enqueued(), call.id(), call.rank(), call.program(),
                    call.cost());
            if (latest == null) {
                continue;
            }
            if (estimate.isAfter(latest.due().plus(LATENESS))) {
                found.add("call " + call.id() + " (L" + l + ", " + call.line() + ") read at " + read + " the estimate "
                        + estimate + ", later than the rules let it go after the " + latest.calls() + " calls that "
                        + "may go first, at their latest: " + latest.due());
            }
            if (e.estimate().position() > latest.calls()) {
                found.add("call " + call.id() + " (L" + l + ", " + call.line() + ") read position "
                        + e.estimate().position() + " at " + read + ", and at most " + latest.calls() + " calls "
                        + "could go before it then");
            }
        }
    }

    /** The retention of the checker's copies: finished calls older than it are pruned. */
    static final Duration RETENTION = Duration.ofSeconds(3);

    /**
     * Nothing lost: a call leaves the tables only when it has ended and the retention has passed since (or its limit
     * was removed, with its history).
     */
    private void prunedOnlyWhenDoneAndOld(List<TableWatch.Gone> gone) {
        for (TableWatch.Gone g : gone) {
            Call c = g.call();
            boolean removed = c.limit() >= 0 && run.removals(c.limit()).stream()
                    .anyMatch(t -> !t.isAfter(g.missedAt().plus(SLACK)));
            if (removed && (c.state().equals("WAITING") || c.state().equals("GRANTED"))) {
                // it ended between two reads of the watch, and its limit's removal took its row with its history: how
                // it ended, no table holds (seed 70002: granted, reported and removed within 150 ms)
                calls.put(c.id(), new Call(c.id(), c.limit(), c.line(), c.rank(), c.program(), c.owner(), "REMOVED",
                        c.enqueued(), c.granted(), g.missedAt(), null, c.deadline(), c.concurrencyKey(), c.dedupeKey(),
                        c.submissionKey(), c.cost(), c.aged()));
                endUnknown.add(c.id());
            }
            boolean ended = !c.state().equals("WAITING") && !c.state().equals("GRANTED") && c.done() != null;
            if (!removed && !(ended && !c.done().isAfter(g.missedAt().minus(RETENTION).plusMillis(
                    TableWatch.EVERY_MS + SLACK.toMillis())))) {
                found.add("call " + c.id() + " (" + c.state() + ", ended " + c.done() + ") left the tables by "
                        + g.missedAt() + ", before its retention of " + RETENTION.toSeconds() + " s");
            }
        }
    }

    /** The send log of a line (none: empty). */
    private List<Send> log(String line) {
        return sends.getOrDefault(line, List.of());
    }

    private static Instant at(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** Nothing lost: every call in one final state, its units logged once when granted, each caller told the truth. */
    private void everyCallEndedOnceAndAsItsCallerWasTold() {
        Map<Long, Integer> units = new HashMap<>();
        for (Map.Entry<String, List<Send>> log : sends.entrySet()) {
            for (Send s : log.getValue()) {
                if (s.callId() == TableWatch.TAKEN_BACK) {
                    continue; // a send a limit declared again took back: its call was counted under its old limit
                }
                Call call = calls.get(s.callId());
                if (call == null || call.granted() == null && !endUnknown.contains(call.id())) {
                    found.add("a send of call " + s.callId() + " that was never granted");
                } else if (call.line().equals(log.getKey())) { // a key's grant is in its parent's log too
                    units.merge(s.callId(), 1, Integer::sum);
                }
            }
        }
        for (Call call : calls.values()) {
            for (HistoryRun.Fault f : List.copyOf(run.faults)) {
                if (f.kind() == History.OperatorKind.KILL && call.owner().equals(f.struck()) && call.granted() != null
                        && call.granted().isAfter(f.dead().plusMillis(100))) {
                    found.add("call " + call.id() + " of the killed copy " + f.struck() + " was granted at "
                            + call.granted() + ", after its copy died at " + f.dead() + " (killed from " + f.from()
                            + ")");
                }
            }
            if (call.state().equals("WAITING") || call.state().equals("GRANTED")) {
                found.add("call " + call.id() + " still " + call.state() + " after the line drained");
            }
            int logged = units.getOrDefault(call.id(), 0);
            int expected = call.granted() == null ? 0 : call.cost();
            if (logged != expected && !endUnknown.contains(call.id())) {
                found.add("call " + call.id() + " (" + call.state() + ", cost " + call.cost() + ") has " + logged
                        + " units in the send log, not " + expected);
            }
        }
        for (Told t : List.copyOf(run.told)) {
            Call call = t.callId() == null ? null : calls.get(t.callId());
            if (call != null && endUnknown.contains(call.id())) {
                continue; // what its caller heard, no table can say
            }
            if (call == null && t.callId() != null && run.removals(t.limit()).stream()
                    .anyMatch(r -> r.isAfter(t.at().minusSeconds(1)) && r.isBefore(t.at().plusSeconds(1)))) {
                // made, ended and taken with its limit's removal between two reads of the watch (seed 96060: granted
                // and reported within 15 ms, the limit removed just after): no table held it
                continue;
            }
            if (call != null && run.faults.stream().anyMatch(f -> f.kind() == History.OperatorKind.KILL
                    && call.owner().equals(f.struck()) && t.at().isAfter(f.from()))) {
                continue; // its caller died with its copy: what it heard after is no one's
            }
            switch (t.answer()) {
                case GRANTED -> {
                    if (call == null || call.granted() == null) {
                        found.add(t + ": told granted, the tables say " + (call == null ? "no call" : call.state()));
                    }
                }
                case CONSUMED -> {
                    if (call == null || !call.state().equals("DONE") || call.status() != null
                            || !call.granted().equals(call.done())) {
                        found.add(t + ": told consumed (granted and ended at once), the tables say "
                                + (call == null ? "no call" : call.state() + " " + call.status() + ", granted at "
                                + call.granted() + ", ended at " + call.done()));
                    }
                }
                case TIMED_OUT, ENDED -> {
                    if (call != null && call.granted() != null) {
                        found.add(t + ": told it was not granted, the tables say granted at " + call.granted()
                                + " (" + call.state() + ")");
                    }
                }
                case RECORDED -> {
                    int status = t.detail().startsWith("429") ? 429 : 200;
                    if (call == null || !call.state().equals("DONE") || call.status() == null
                            || call.status() != status) {
                        found.add(t + ": told its outcome was recorded, the tables say " + (call == null ? "no call"
                                : call.state() + " " + call.status()));
                    }
                }
                case SHARED_OUTCOME -> {
                    String seen = call == null ? "none" : call.state() + " " + call.status();
                    if (!t.detail().equals(seen)) {
                        found.add(t + ": a joiner told '" + t.detail() + "', the tables say '" + seen + "'");
                    }
                }
                case JOINED -> {
                    if (call == null || call.dedupeKey() == null) {
                        found.add(t + ": told it joined a call the tables do not hold with a dedupe key");
                    }
                }
                case SAME_CALL -> {
                    if (!t.detail().startsWith("first answer call " + t.callId() + ", repeated true")) {
                        found.add(t + ": a submission sent again with its key did not find the call it made");
                    }
                }
                case DEADLINE -> {
                    Instant could = grantableBy(t);
                    if (could != null) {
                        found.add(t + ": refused for its deadline, yet the rules in force could have granted it by "
                                + could);
                    }
                    String key = t.detail().startsWith("a twin") ? "none" : "r"; // a twin's step made the call
                    for (Call c : calls.values()) {
                        if (c.submissionKey() != null && c.submissionKey().endsWith("-p" + t.program() + "-s"
                                + t.step()) && c.submissionKey().startsWith(key)) {
                            found.add(t + ": refused for its deadline, yet the tables hold call " + c.id());
                        }
                    }
                }
                case ABANDONED -> {
                    if (t.detail().equals("true") && (call == null || !call.state().equals("ABANDONED"))) {
                        found.add(t + ": told abandoned, the tables say " + (call == null ? "no call" : call.state()));
                    }
                }
                case PAUSED -> {
                    if (!run.faultAt(t.at())) {
                        found.add(t + ": calls are paused, with no fault made");
                    }
                }
                case REPORT_REFUSED -> {
                    if (!run.faultAt(t.at())) {
                        found.add(t + ": the report of a granted call was refused");
                    }
                }
                case UNKNOWN_LIMIT -> {
                    if (!run.absentAt(t.limit(), heardBefore(t.program(), t.step()), t.at())) {
                        found.add(t + ": told the limit is unknown while it was declared");
                    }
                }
                case INVALID -> {
                    int cost = costOf(t);
                    // the generator asks within the gate's bounds: only a re-pace below a call's cost makes it one
                    // the gate must refuse, and a cost above 1 on a keyed limit (it takes calls of one unit)
                    boolean keyed = run.mayBeKeyedAt(t.limit(), t.at());
                    if (!t.detail().contains("cost:") || !(keyed && cost > 1) && cost <= run.fewestCalls(t.limit(),
                            t.at().minusSeconds(2), t.at())) {
                        found.add(t + ": a request within the gate's bounds (cost " + cost + ") refused as invalid");
                    }
                }
                case LINE_FULL -> {
                    if (t.detail().contains(LineSize.Cap.KEYS.why())) {
                        if (!keysMayHaveBeenFull(t)) {
                            found.add(t + ": refused as its limit's keys full, and fewer than its maxKeys other keys"
                                    + " could have been open");
                        }
                    } else if (!lineMayHaveBeenFull(t)) {
                        found.add(t + ": refused as line full, and its line could not have been");
                    }
                }
                case KEYED -> {
                    // every key fits its limit's kind as its program knows it: only a change of kind under way
                    // explains this refusal
                    if (!kindChangingAt(t.limit(), t.at())) {
                        found.add(t + ": refused (" + t.answer() + ") where no rule refuses it");
                    }
                }
                case KEY_REUSED, FAILED ->
                        // every submission key is new: not a right answer here, and a failure never is
                        found.add(t + ": refused (" + t.answer() + ") where no rule refuses it");
                case NOT_NOW -> {
                    if (dueThroughout(t)) {
                        found.add(t + ": a try told not now while a unit was due, no call waited and nothing could "
                                + "hold the limit");
                    }
                }
                default -> {
                    // the rest are judged above by the tables, or are not the gate's (another client's use)
                }
            }
        }
    }

    /**
     * Whether a fault may explain a refusal heard between {@code from} and {@code to}: a cut, with the recovery after
     * it (its copy paused; its calls' owner alive as the database reads it); a kill only until its last session
     * closed (a pass it had under way could commit until then). After that its calls are a dead instance's, which no
     * survivor's answer may wait for (defect 4 of issue 52).
     */
    private boolean faultMayExplain(Instant from, Instant to) {
        return run.faults.stream().anyMatch(f -> f.kind() == History.OperatorKind.KILL
                ? f.from().minusMillis(200).isBefore(to) && f.dead().plus(SETTLED).isAfter(from)
                : f.covers(from) || f.covers(to));
    }

    /**
     * Whether a join refused as line full met its bound: its limit has one, and at least that many calls of its line
     * (of its program, for the per-program bound) may have been waiting as it joined (each from its joining to its
     * leaving the line, give or take the time a statement takes to be heard; a killed copy's calls not once it died).
     */
    private boolean lineMayHaveBeenFull(Told t) {
        History.LineBound bound = run.history.limits().get(t.limit()).line();
        if (bound == null) {
            return false;
        }
        Instant from = t.at().minusMillis(500); // the join's statement ran before its caller heard
        String program = "p" + t.program();
        long line = 0;
        long own = 0;
        for (Call c : calls.values()) {
            if (c.limit() != t.limit() || c.enqueued().isAfter(t.at())
                    || c.leftWaiting() != null && c.leftWaiting().isBefore(from) || deadBy(c.owner(), from)) {
                continue;
            }
            line++;
            if (c.program().equals(program)) {
                own++;
            }
        }
        return line >= bound.maxWaiting() || bound.perProgram() != null && own >= bound.perProgram();
    }

    /**
     * Whether a call refused as its limit's keys being full met that bound: its limit has one, and at least that many
     * other keys of it may have been open as it asked. A key opens on its first call and stays open here (the idle
     * sweep's grace is longer than a history), so every key of a step that may have begun before the refusal counts:
     * a program's step begins after its step before was heard (sooner is not known, so counting from then counts more,
     * never less).
     */
    private boolean keysMayHaveBeenFull(Told t) {
        Integer bound = run.history.limits().get(t.limit()).maxKeys();
        if (bound == null) {
            return false;
        }
        String own = keyOf(run.history.programs().get(t.program()).get(t.step()));
        Set<String> others = new HashSet<>();
        for (int p = 0; p < run.history.programs().size(); p++) {
            List<History.Step> steps = run.history.programs().get(p);
            for (int s = 0; s < steps.size(); s++) {
                String key = keyOf(steps.get(s));
                if (key != null && !key.equals(own) && limitOf(steps.get(s)) == t.limit()
                        && !heardBefore(p, s).isAfter(t.at())) {
                    others.add(key);
                }
            }
        }
        return others.size() >= bound;
    }

    /** The last answer a program heard before its step {@code s} began (the epoch when none). */
    private Instant heardBefore(int program, int s) {
        Instant last = Instant.EPOCH;
        for (Told o : List.copyOf(run.told)) {
            if (o.program() == program && o.step() < s && o.at().isAfter(last)) {
                last = o.at();
            }
        }
        return last;
    }

    private static String keyOf(History.Step step) {
        return step instanceof History.Join j ? j.key() : step instanceof History.Try t ? t.key()
                : step instanceof History.Cancel c ? c.key() : step instanceof History.Flood f ? f.join().key() : null;
    }

    private static int limitOf(History.Step step) {
        return step instanceof History.Join j ? j.limit() : step instanceof History.Try t ? t.limit()
                : step instanceof History.Cancel c ? c.limit() : step instanceof History.Flood f ? f.join().limit() : -1;
    }

    /** How long before its caller heard it a join's statement may have run (its estimate's "now"). */
    private static final Duration HEARD_WITHIN = Duration.ofMillis(250);

    /**
     * When a join refused for its deadline could have been granted, by the oracle's reading of the rules, where that
     * is well inside its deadline and nothing else could have held it: no pause or hold that could have run, no fault
     * or change under way (else null: the refusal is not judged). The calls of its line that waited then go first, at
     * their most ({@link #latestGrant}), then the refused one. A limit with keys under it is not judged.
     */
    private Instant grantableBy(Told t) {
        History.Step step = run.history.programs().get(t.program()).get(t.step());
        int l = t.limit();
        if (!(step instanceof History.Join join) || join.deadlineMs() == null || t.callId() != null
                || join.concurrencyKey() != null || run.everKeyed(l) || run.everParent(l)) {
            return null;
        }
        Instant from = t.at().minus(HEARD_WITHIN);
        Instant by = from.plusMillis(join.deadlineMs());
        boolean held = holdsAtMost(l).stream().anyMatch(h -> h.from().isBefore(by) && h.until().isAfter(from));
        boolean changing = faultMayExplain(from, by)
                || run.acts.stream().anyMatch(a -> a.step().limit() == l && a.started().isBefore(by)
                && a.ended().plusMillis(200).isAfter(from));
        if (held || changing) {
            return null;
        }
        Ahead ahead = latestGrant(l, t.at(), from, t.at(), -1, join.callClass().rank(), "p" + t.program(),
                join.cost());
        // the gate's estimate may read the log a little before its caller heard: a unit sent since does not count
        return ahead != null && ahead.due().plus(HEARD_WITHIN).plus(LATENESS).isBefore(by) ? ahead.due() : null;
    }

    /** The calls that may go before a call, at their most, and when it goes after them by the oracle. */
    private record Ahead(int calls, Instant due) {
    }

    /**
     * The latest a call of limit {@code l} (class {@code rank}, of {@code program}, joined at {@code enqueued}) may be
     * due by the rules, read at {@code at}: the calls of its line waiting then (any time since {@code since}, a live
     * copy's) that may go first, at their most: on a line in strict order every one ranked ahead of it; where
     * programs take turns, every call of a higher class, its own program's earlier calls of its class, and as many
     * turns of each other program as its own program takes until the call (defect 3 of issue 52); each sent as soon
     * as the oracle lets it, then the call. Null under the starvation guard with others waiting (it lifts calls).
     */
    private Ahead latestGrant(int l, Instant at, Instant since, Instant enqueued, long self, int rank, String program,
                              int cost) {
        LimitPlan plan = run.history.limits().get(l);
        List<Call> others = calls.values().stream().filter(c -> c.limit() == l && c.id() != self
                        && !c.enqueued().isAfter(at) && (c.leftWaiting() == null
                        || c.leftWaiting().isAfter(since.minus(SETTLED))) && !deadBy(c.owner(), since))
                .sorted(java.util.Comparator.comparing(Call::enqueued)).toList();
        if (plan.aging() && !others.isEmpty()) {
            return null;
        }
        List<Integer> ahead = new ArrayList<>();
        others.stream().filter(c -> c.rank() < rank).forEach(c -> ahead.add(c.cost()));
        List<Call> mine = others.stream().filter(c -> c.rank() == rank && c.program().equals(program)
                && c.enqueued().isBefore(enqueued.plus(SLACK))).toList();
        mine.forEach(c -> ahead.add(c.cost()));
        Map<String, List<Call>> byProgram = others.stream().filter(c -> c.rank() == rank
                && !c.program().equals(program)).collect(java.util.stream.Collectors.groupingBy(Call::program));
        for (List<Call> theirs : byProgram.values()) {
            theirs.stream().filter(c -> plan.fair() || c.enqueued().isBefore(enqueued.plus(SLACK)))
                    .limit(plan.fair() ? mine.size() + 1L : theirs.size()).forEach(c -> ahead.add(c.cost()));
        }
        return new Ahead(ahead.size(), dueAfter(l, log(run.names[l]), at, ahead, cost));
    }

    /**
     * When, by the oracle, a call of {@code cost} may go on the limit after the calls ahead of it ({@code ahead}: their
     * costs), each sent in turn as soon as the oracle lets it from {@code t} on, the log as it was before {@code t}.
     * It errs late, as the oracle does.
     */
    private Instant dueAfter(int l, List<Send> log, Instant t, List<Integer> ahead, int cost) {
        List<Send> chain = new ArrayList<>(log.stream().filter(s -> s.sentAt().isBefore(t)).toList());
        Instant at = t;
        long id = -1;
        for (int units : ahead) {
            Instant sent = dueAt(run, l, chain, at, units);
            for (int u = 0; u < units; u++) {
                chain.add(new Send(l, id, sent, sent, -1));
            }
            id--;
            at = sent.plusNanos(1_000); // the oracle reads the units sent before its moment
        }
        return dueAt(run, l, chain, at, cost);
    }

    /**
     * Whether the copy that owns a call was killed and its last session closed before {@code t}: its waiting calls
     * count in no reading of the line after (defect 4 of issue 52).
     */
    private boolean deadBy(String owner, Instant t) {
        return run.faults.stream().anyMatch(f -> f.kind() == History.OperatorKind.KILL && owner.equals(f.struck())
                && f.dead().plus(SETTLED).isBefore(t));
    }

    /**
     * Whether a try told "not now" met a line that, by the oracle's reading of the rules, was due for its units all
     * the while its statement may have run, with no call of a live copy waiting and no pause, hold, fault or change
     * that could have run. A key's try (of a limit keyed throughout) is judged on its key's line and its parent's: no
     * call of a live copy waiting under the parent (its own line, any key's), and no other try under it then (a try
     * finds the parent's slot taken while another holds it, and is told to come back in 20 ms). A parent's own try is
     * not judged (its keys' grants share its slot).
     */
    private boolean dueThroughout(Told t) {
        History.Step step = run.history.programs().get(t.program()).get(t.step());
        int l = t.limit();
        if (!(step instanceof History.Try tried) || run.absentAt(l, t.at()) || run.everParent(l)) {
            return false;
        }
        boolean key = run.history.limits().get(l).keyed() && !run.changesKind(l);
        if (!key && run.everKeyed(l)) {
            return false;
        }
        int p = key ? run.parentOf(l) : l;
        String line = key ? new dev.gate.rules.LimitKey(run.names[l],
                tried.key() != null ? tried.key() : "store-" + t.step() % 3).limitName() : run.names[l];
        Instant from = t.at().minus(HEARD_WITHIN);
        boolean waiting = calls.values().stream().anyMatch(c -> (c.limit() == l || c.limit() == p
                || key && Integer.valueOf(p).equals(run.parentOf(c.limit())))
                && c.enqueued().isBefore(t.at().plus(SLACK))
                && (c.leftWaiting() == null || c.leftWaiting().isAfter(from.minus(SETTLED)))
                && !deadBy(c.owner(), from) && !heardGranted(c, t));
        boolean tries = key && run.told.stream().anyMatch(o -> o != t && (o.limit() == p
                || Integer.valueOf(p).equals(run.parentOf(o.limit())))
                && run.history.programs().get(o.program()).get(o.step()) instanceof History.Try
                && o.at().isAfter(from.minus(HEARD_WITHIN)) && o.at().minus(HEARD_WITHIN).isBefore(t.at()));
        List<Hold> holds = new ArrayList<>(holdsAtMost(l));
        holds.addAll(key ? holdsAtMost(p) : List.of());
        boolean held = holds.stream().anyMatch(h -> h.from().isBefore(t.at().plus(SLACK))
                && h.until().plus(SLACK).isAfter(from));
        boolean changing = faultMayExplain(from, t.at())
                || run.acts.stream().anyMatch(a -> (a.step().limit() == l || a.step().limit() == p)
                && a.started().isBefore(t.at().plusMillis(200)) && a.ended().plusMillis(200).isAfter(from));
        if (waiting || tries || held || changing) {
            return false;
        }
        List<Send> log = log(line);
        List<Send> parentLog = log(run.names[p]);
        // its burst's units back to back, as a fresh or idle limit's; not while another program's try ran (on the free
        // line a try that finds the slot locked by another is told to come back at once), nor beside the consumes its
        // own step sent with it (tries that meet)
        boolean othersTried = run.told.stream().anyMatch(o -> o != t
                && (o.program() != t.program() || o.step() == t.step()) && o.limit() == l
                && run.history.programs().get(o.program()).get(o.step()) instanceof History.Try
                && o.at().isAfter(from.minus(HEARD_WITHIN)) && o.at().minus(HEARD_WITHIN).isBefore(t.at()));
        if (!key && !othersTried && burstUntouched(l, t.at())) {
            List<HistoryVendor.Rule> rules = rulesAt(run, l, t.at());
            LimitPlan plan = run.history.limits().get(l);
            if (HistoryOracle.dueWithBurst(rules, plan.marginMs(), plan.burst(), log, from.minus(SLACK), tried.cost())
                    && HistoryOracle.dueWithBurst(rules, plan.marginMs(), plan.burst(), log, t.at(), tried.cost())) {
                return true;
            }
        }
        return !dueAt(run, l, log, from.minus(SLACK), tried.cost()).isAfter(from.minus(SLACK))
                && !dueAt(run, l, log, t.at(), tried.cost()).isAfter(t.at())
                && (!key || !dueAt(run, p, parentLog, from.minus(SLACK), tried.cost()).isAfter(from.minus(SLACK))
                && !dueAt(run, p, parentLog, t.at(), tried.cost()).isAfter(t.at()));
    }

    /**
     * Whether a call is one the program of {@code t} heard granted at an earlier step (before it sent this one): no
     * longer in the line.
     */
    private boolean heardGranted(Call c, Told t) {
        return c.granted() != null && run.told.stream().anyMatch(o -> o.program() == t.program()
                && o.step() < t.step() && Long.valueOf(c.id()).equals(o.callId())
                && (o.answer() == Answer.GRANTED || o.answer() == Answer.CONSUMED));
    }

    /**
     * Whether a limit's burst allowance is read from its send log alone until {@code t}: a burst on sliding rules only
     * (no block, no quota, no spacing, no adaptive rate), and nothing before {@code t} that moves its beat otherwise:
     * no operator's step on it, no fault, no vendor's word reported on it.
     */
    private boolean burstUntouched(int l, Instant t) {
        LimitPlan plan = run.history.limits().get(l);
        return plan.burst() > 1 && plan.alignedZone() == null && plan.quota() == null && plan.minIntervalMs() == 0
                && !plan.adaptive() && run.acts.stream().noneMatch(a -> a.step().limit() == l
                && a.started().isBefore(t.plusMillis(200)))
                && run.faults.stream().noneMatch(f -> f.from().isBefore(t.plusSeconds(5)))
                && run.reported.stream().noneMatch(r -> r.limit() == l && r.report().kind() != ReportKind.OK
                && r.sent().isBefore(t));
    }

    /** The units a program's step asked for. */
    private int costOf(Told t) {
        History.Step step = run.history.programs().get(t.program()).get(t.step());
        return step instanceof History.Join j ? j.cost() : step instanceof History.Try x ? x.cost() : 1;
    }

    /**
     * The rules of a line as the vendor states them: a key's are its limit's (its parent's are checked on its line);
     * a keyed limit's own line sends nothing while it is keyed.
     */
    private List<HistoryVendor.Rule> windows(String line, int l) {
        return run.vendorRules(run.history.limits().get(l));
    }

    /** Whether an operator's change of the limit's kind was under way at {@code t}. */
    private boolean kindChangingAt(int l, Instant t) {
        return run.acts.stream().anyMatch(a -> a.step().kind() == History.OperatorKind.KIND && a.step().limit() == l
                && a.started().isBefore(t.plusMillis(200)) && a.ended().plusMillis(200).isAfter(t));
    }

    /** Whether a line is a key's (its name holds the key after its limit's). */
    private static boolean keyLine(String line) {
        return dev.gate.rules.LimitKey.isKeyName(line);
    }

    /** Since when the limit's history goes back at {@code t}: its last removal before (a limit made anew after). */
    private Instant epoch(int l, Instant t) {
        Instant since = Instant.EPOCH;
        for (Instant removed : run.removals(l)) {
            if (removed.isBefore(t)) {
                since = removed;
            }
        }
        return since;
    }

    private static Instant later(Instant a, Instant b) {
        return b.isAfter(a) ? b : a;
    }

    /** A rule's calls at {@code t}: the main rule's as re-paced by then. */
    private int calls(int l, HistoryVendor.Rule w, Instant t) {
        return w.name().equals("main rule") ? run.callsAt(l, t) : w.calls();
    }

    /**
     * Never more than the vendor allows, by the send log: at each send, the window ending there, by the vendor's own
     * rules (a grant reaches the vendor up to the margin later: it counts in the block of its grant and the margin).
     * A removal does not start the windows anew: the limit declared again takes back the sends they still count.
     */
    private void noWindowOverItsCalls(String line, int l) {
        List<Send> log = log(line);
        long margin = run.history.limits().get(l).marginMs();
        for (HistoryVendor.Rule w : windows(line, l)) {
            for (int i = 0; i < log.size(); i++) {
                Instant t = log.get(i).sentAt();
                Instant from = w.aligned() ? w.block(t)[0].minusMillis(margin).minusNanos(1_000)
                        : t.minusMillis(w.ms());
                int in = 0;
                for (int j = i; j >= 0 && log.get(j).sentAt().isAfter(from); j--) {
                    in++;
                }
                int allowed = calls(l, w, t);
                if (in > allowed) {
                    found.add(line + " " + w + ": " + in + " units in the window ending at " + t + " (send "
                            + log.get(i).seq() + "), allowed " + allowed);
                    break;
                }
            }
        }
    }

    /**
     * A limit's minimum spacing holds between the sends of any two calls ("even where the beat would put two late
     * sends close together"), a call's units going together; across a removal the limit starts anew.
     */
    private void noTwoSendsCloserThanTheSpacing(String line, int l) {
        long spacing = run.history.limits().get(l).minIntervalMs();
        List<Send> log = log(line);
        for (int i = 1; i < log.size() && spacing > 0; i++) {
            Send before = log.get(i - 1);
            Send send = log.get(i);
            if (send.callId() == before.callId() || !epoch(l, send.sentAt()).equals(epoch(l, before.sentAt()))) {
                continue;
            }
            if (Duration.between(before.sentAt(), send.sentAt()).toMillis() < spacing - SLACK.toMillis()) {
                found.add(line + ": send " + send.seq() + " (call " + send.callId() + ") at " + send.sentAt() + ", "
                        + Duration.between(before.sentAt(), send.sentAt()).toMillis() + " ms after send "
                        + before.seq() + " (call " + before.callId() + "): the limit's spacing is " + spacing + " ms");
                return;
            }
        }
    }

    /**
     * Never more than the vendor allows, as the vendor judged it: it never refused a request of the gate's for the
     * gate's own sending, nor took two requests for one call. A refusal is explained only by another client's units
     * in the full rule that came after the last count the gate was told of that account (it could not have known of
     * them), or by a unit of the gate's in it that reached the vendor later than its receipt margin after its grant
     * (the caller's own path took longer than the margin the gate was told of).
     */
    private void theVendorNeverRefusedTheGatesOwnSending() {
        for (long twice : run.vendor.requestedTwice()) {
            found.add("the vendor received two requests for call " + twice);
        }
        for (HistoryVendor.Request q : run.vendor.requests()) {
            if (q.callId() < 0 || !q.answer().refused()) {
                continue;
            }
            Call call = calls.get(q.callId());
            if (call == null || late(call, q.at())) {
                continue;
            }
            boolean explained = false;
            for (HistoryVendor.Full full : q.fullRules()) {
                Instant told = lastCountTold(full.account(), q.at());
                for (HistoryVendor.Use u : run.vendor.used(full.account())) {
                    if (u.at().isAfter(q.at()) || !full.rule().counts(u.at(), q.at())) {
                        continue;
                    }
                    Call by = u.gate() ? calls.get(u.callId()) : null;
                    explained |= u.gate() ? by == null || late(by, u.at()) : u.at().isAfter(told);
                }
            }
            if (!explained) {
                StringBuilder uses = new StringBuilder();
                for (HistoryVendor.Full full : q.fullRules()) {
                    for (HistoryVendor.Use u : run.vendor.used(full.account())) {
                        if (!u.at().isAfter(q.at()) && full.rule().counts(u.at(), q.at())) {
                            Call by = u.gate() ? calls.get(u.callId()) : null;
                            uses.append("\n    ").append(u.gate() ? "call " + u.callId() + " (granted "
                                    + (by == null ? "?" : by.granted()) + ")" : "another client").append(" at ")
                                    .append(u.at());
                        }
                    }
                }
                found.add("the vendor refused call " + q.callId() + " (" + q.units() + " units, granted "
                        + call.granted() + ") at " + q.at() + " for the gate's own sending: " + q.fullRules()
                        + " full; its window held:" + uses);
            }
        }
    }

    /** Whether a call's request reached the vendor later than its limit's receipt margin after its grant. */
    private boolean late(Call call, Instant at) {
        LimitPlan plan = run.history.limits().get(call.limit());
        long margin = keyLine(call.line()) ? Math.min(plan.marginMs(),
                run.history.limits().get(run.parentOf(call.limit())).marginMs()) : plan.marginMs();
        return call.granted() == null || at.isAfter(call.granted().plusMillis(margin));
    }

    /**
     * When the gate was last told the vendor's count of an account (or of a key inside it) before {@code t}, if it
     * still held to it at {@code t}: an operator's resume since ends a count's hold, and so does the limit's
     * maxCoolDown (the operator's bound on any hold, shorter than the vendor's reset); the gate knows nothing then
     * (Instant.MIN).
     */
    private Instant lastCountTold(String account, Instant t) {
        HistoryRun.Reported last = run.reported.stream().filter(r -> r.report().kind() == ReportKind.COUNT
                        && (r.account().equals(account) || r.account().startsWith(account + "/"))
                        && r.at().isBefore(t)).max((x, y) -> x.sent().compareTo(y.sent())).orElse(null);
        if (last == null) {
            return Instant.MIN;
        }
        int l = Integer.parseInt(account.substring(1).split("/")[0]);
        LimitPlan plan = run.history.limits().get(l);
        int held = account.contains("/") ? run.parentOf(l) : l; // the operator acts on the parent
        boolean resumed = run.acts.stream().anyMatch(a -> a.done() && a.step().limit() == held
                && a.step().kind() == History.OperatorKind.RESUME && a.ended().isAfter(last.sent())
                && a.started().isBefore(t));
        boolean capped = t.isAfter(last.at().plusMillis(Math.min(plan.maxCoolDownMs(), longestWindow(plan))));
        // a count is the vendor's word on its plan then: after a new plan (the operator's re-pace or re-declaration
        // follows it) it says nothing of what another client used (seed 97037: a count under a rule of 301,926, then
        // a re-pace to 17; the other client's 7 earlier units filled the new rule)
        boolean replanned = run.acts.stream().anyMatch(a -> a.done() && a.step().limit() == held
                && (a.step().kind() == History.OperatorKind.REPACE || a.step().kind() == History.OperatorKind.REDECLARE)
                && a.ended().isAfter(last.sent()) && a.started().isBefore(t));
        return resumed || capped || replanned ? Instant.MIN : last.sent();
    }

    /** A time the limit may grant nothing. */
    private record Hold(Instant from, Instant until) {
    }

    /**
     * Whether a call counts on a line: its own, or (a key's call) its parent's, whose window and pauses its keys share.
     */
    private boolean ofLine(Call call, String line) {
        if (call == null) {
            return false;
        }
        if (call.line().equals(line)) {
            return true;
        }
        Integer parent = run.parentOf(call.limit());
        if (parent == null || !run.names[parent].equals(line)) {
            return false;
        }
        // a key's call; or, of a plain limit made keyed, a call of its own line once the change began (its grant
        // takes the parent's send too)
        Instant madeKeyed = run.madeKeyedFrom(call.limit());
        return keyLine(call.line()) || madeKeyed != null && !call.enqueued().isBefore(madeKeyed.minusMillis(200));
    }

    /** No grant while an operator's pause, a cool-down, or a vendor's count of nothing left holds the limit. */
    private void noGrantWhilePausedOrHeld(String line, int l) {
        boolean key = !line.equals(run.names[l]);
        LimitPlan plan = run.history.limits().get(l);
        List<Instant> resumes = run.acts.stream().filter(a -> a.step().limit() == l
                && a.step().kind() == History.OperatorKind.RESUME && a.done()).map(Act::started).toList();
        List<Hold> held = new ArrayList<>();
        for (Act act : List.copyOf(run.acts)) {
            if (!key && act.step().limit() == l && act.step().kind() == History.OperatorKind.PAUSE && act.done()) {
                held.add(new Hold(act.ended(), act.pausedUntil()));
            }
        }
        for (HistoryRun.Reported r : List.copyOf(run.reported)) {
            Call call = calls.get(r.callId());
            if (!ofLine(call, line) || call.done() == null) {
                continue;
            }
            if (r.report().kind() == ReportKind.SLOW_DOWN) {
                Duration asked = r.report().retryAfterSeconds() == null ? HistoryRun.FLOOR
                        : min(Duration.ofSeconds(r.report().retryAfterSeconds()),
                        Duration.ofMillis(plan.maxCoolDownMs()));
                held.add(new Hold(call.done(), call.done().plus(asked)));
            } else if (r.report().kind() == ReportKind.COUNT && r.report().remaining() == 0
                    && countHolds(line, call, r) && !explained(line, l, call, r.report().quota())) {
                // nothing left by the vendor's word, and not the gate's own full window: held (as a cool-down, at
                // most the limit's maxCoolDown and longest window) until a later count replaces it
                long hold = Math.min(r.report().resetSeconds() * 1000, Math.min(plan.maxCoolDownMs(),
                        longestWindow(plan)));
                // the hold runs from the report's statement, somewhere between its sending and its call's end
                Instant until = r.sent().plusMillis(hold);
                for (HistoryRun.Reported later : List.copyOf(run.reported)) {
                    Call by = calls.get(later.callId());
                    if (ofLine(by, line) && later.report().kind() == ReportKind.COUNT && by != null
                            && by.done() != null && by.done().isAfter(call.done()) && by.done().isBefore(until)) {
                        until = by.done();
                    }
                }
                held.add(new Hold(call.done(), until));
            }
        }
        List<Instant> ends = new ArrayList<>(resumes);
        ends.addAll(run.removals(l)); // a removed limit's pauses and counts go with it
        for (Hold h : held) {
            Instant until = h.until();
            for (Instant resumed : ends) {
                if (resumed.isAfter(h.from()) && resumed.isBefore(until)) {
                    until = resumed;
                }
            }
            for (Send s : log(line)) {
                if (s.sentAt().isAfter(h.from().plus(SLACK)) && s.sentAt().isBefore(until.minus(SLACK))) {
                    found.add(line + ": send " + s.seq() + " (call " + s.callId() + ") at " + s.sentAt()
                            + " while the limit was held from " + h.from() + " to " + until);
                    break;
                }
            }
        }
    }

    /**
     * Whether a count reported on {@code call} holds {@code line}: a plain limit's its own; a key's count holds the
     * key's line, and one of the parent's account (its quota one of the parent's rules; with none, a remaining more
     * than the key's rule and no more than the parent's largest: the documented rule) holds the parent's line, every
     * key's grant in it.
     */
    private boolean countHolds(String line, Call call, HistoryRun.Reported r) {
        LimitPlan plan = run.history.limits().get(call.limit());
        if (!keyLine(call.line())) {
            return true;
        }
        List<Integer> parent = rulesAt(run, run.parentOf(call.limit()), r.at()).stream()
                .map(HistoryVendor.Rule::calls).toList();
        Integer quota = r.report().quota();
        boolean ofParent = quota != null ? parent.contains(quota)
                : r.report().remaining() > plan.calls() && r.report().remaining() <= parent.stream()
                .mapToInt(Integer::intValue).max().orElse(0);
        return ofParent != line.equals(call.line());
    }

    /**
     * Higher class first, first come first served inside a class: no grant while an earlier eligible call waited.
     * Where programs take turns, first come first served holds inside each program's calls of a class (the program
     * served longest ago goes first); under the starvation guard, a call it lifted is not held to it (it ranks as
     * the guard's class, keeping its arrival), the rest are.
     */
    private void higherClassFirstAndFirstComeFirstServed(String line, LimitPlan plan) {
        List<Call> mine = calls.values().stream().filter(c -> c.line().equals(line)).toList();
        for (Call x : mine) {
            if (x.granted() == null || x.aged()) {
                continue;
            }
            for (Call y : mine) {
                if (y == x || y.state().equals("EXPIRED") || endUnknown.contains(y.id())
                        || !y.enqueued().isBefore(x.granted().minus(SETTLED))
                        || y.leftWaiting() == null || !y.leftWaiting().isAfter(x.granted().plus(SLACK))
                        || pastDeadline(y, x.granted()) || keyHeld(mine, y, x.granted())
                        || run.ownerDownAt(y.owner(), x.granted())) {
                    continue;
                }
                boolean higher = y.rank() < x.rank();
                boolean earlier = y.rank() == x.rank() && y.enqueued().isBefore(x.enqueued().minus(SETTLED))
                        && (!plan.fair() || y.program().equals(x.program()));
                if (higher || earlier) {
                    found.add(line + ": call " + x.id() + " (rank " + x.rank() + ", joined " + x.enqueued()
                            + ") granted at " + x.granted() + " while call " + y.id() + " (rank " + y.rank()
                            + ", joined " + y.enqueued() + ") waited until " + y.leftWaiting());
                    return;
                }
            }
        }
    }

    /** Whether a call's deadline had passed by {@code t} (the grant statement passes over such a call). */
    private static boolean pastDeadline(Call call, Instant t) {
        return call.deadline() != null && call.deadline().isBefore(t.plus(SLACK));
    }

    /** How late a due grant may come on a busy 2-core box (the loop's wake, a commit, a copy hearing of it). */
    private static final Duration LATENESS = Duration.ofMillis(500);
    private static final Duration STEP = Duration.ofMillis(50);

    /**
     * Nobody locked out, on a limit and every line that shares its beat (its keys' lines while it is a parent; a plain
     * limit made keyed, its own line once the change began): whenever a call waited there that the rules would send
     * (no pause or hold on the limit or a line under it could still be running, every window had room for its line's
     * head, its parent's too, and the beats were due), a unit went on the limit within the lateness. A costly head
     * keeps its place: a line is due when its head's units fit (on a limit whose order is not strict, when every
     * waiting call's do). The limit's own line goes first: a key's line is judged only while no call of it waits.
     * Times when the limit is itself a key's template (or its kind is changing) are judged on its parent.
     */
    private void nobodyLockedOut(int l) {
        List<Integer> under = new ArrayList<>();
        for (int k = 0; k < run.names.length; k++) {
            if (run.everKeyed(k) && Integer.valueOf(l).equals(run.parentOf(k))) {
                under.add(k);
            }
        }
        if (under.stream().anyMatch(k -> run.refusedLimits.stream().anyMatch(r -> r.startsWith("L" + k + ":")))) {
            return;
        }
        List<Send> log = log(run.names[l]);
        List<Hold> maybeHeld = new ArrayList<>(holdsAtMost(l));
        under.forEach(k -> maybeHeld.addAll(holdsAtMost(k, l)));
        List<Integer> all = new ArrayList<>(under);
        all.add(l);
        for (Instant t = run.start.plusSeconds(1); t.isBefore(run.ended.minus(LATENESS)); t = t.plus(STEP)) {
            Instant now = t;
            if (run.mayBeKeyedAt(l, now) || kindChangingAt(l, now) || run.faultAt(now)
                    || maybeHeld.stream().anyMatch(h -> !now.isBefore(h.from().minus(SLACK))
                    && now.isBefore(h.until().plus(SLACK)))
                    || all.stream().anyMatch(k -> kindChangingAt(k, now) || run.repaced.get(k).stream()
                    .anyMatch(a -> now.isAfter(a.started().minusMillis(200)) && now.isBefore(a.ended().plusMillis(200))))) {
                continue;
            }
            List<Call> own = calls.values().stream().filter(c -> c.line().equals(run.names[l])).toList();
            Call due = dueHead(l, own, log, now, null);
            boolean ownWaits = own.stream().anyMatch(y -> !y.enqueued().isAfter(now.plus(LATENESS))
                    && (y.leftWaiting() == null || y.leftWaiting().isAfter(now)) && !y.state().equals("EXPIRED")
                    && !deadBy(y.owner(), now));
            for (int k : under) {
                if (due != null || ownWaits) {
                    break;
                }
                if (!run.mayBeKeyedAt(k, now)) {
                    continue;
                }
                Instant madeKeyed = run.madeKeyedFrom(k);
                Map<String, List<Call>> lines = calls.values().stream().filter(c -> c.limit() == k
                                && (keyLine(c.line()) || madeKeyed != null && now.isAfter(madeKeyed.plusMillis(200))))
                        .collect(java.util.stream.Collectors.groupingBy(Call::line, java.util.TreeMap::new,
                                java.util.stream.Collectors.toList()));
                for (Map.Entry<String, List<Call>> line : lines.entrySet()) {
                    due = dueHead(k, line.getValue(), log(line.getKey()), now, l);
                    if (due != null) {
                        break;
                    }
                }
            }
            if (due == null) {
                continue;
            }
            Call head = due;
            boolean sent = log.stream().anyMatch(s -> !s.sentAt().isBefore(now)
                    && !s.sentAt().isAfter(now.plus(LATENESS)));
            if (!sent) {
                List<Call> line = calls.values().stream().filter(c -> c.line().equals(head.line())).toList();
                found.add(head.line() + " (L" + head.limit() + ": " + run.history.limits().get(head.limit()) + ") locked "
                        + "out at " + now + ": call " + head.id() + " (rank " + head.rank() + ", cost " + head.cost()
                        + ") waited, no pause or hold could run, every window had room and the beat was due, yet "
                        + "nothing was granted on " + run.names[l] + " within " + LATENESS.toMillis() + " ms; the line "
                        + "then: " + around(line, log(head.line()), now)
                        + (head.line().equals(run.names[l]) ? "" : "\n  and " + run.names[l] + "'s log:"
                        + around(List.of(), log, now)));
                return;
            }
        }
    }

    /**
     * The head of a line at {@code now} when the rules would send it then (null: none waits that could go, or its
     * units do not fit): its limit {@code k}'s rules on the line's log, and its parent's ({@code parent}, null: none)
     * on the parent's log.
     */
    private Call dueHead(int k, List<Call> line, List<Send> lineLog, Instant now, Integer parent) {
        LimitPlan plan = run.history.limits().get(k);
        java.util.Comparator<Call> order = (x, y) -> x.rank() != y.rank() ? Integer.compare(x.rank(), y.rank())
                : x.enqueued().compareTo(y.enqueued());
        List<Call> waiting = line.stream().filter(y -> !y.state().equals("EXPIRED") && !endUnknown.contains(y.id())
                        && y.enqueued().isBefore(now.minus(SETTLED)) && y.leftWaiting() != null
                        && y.leftWaiting().isAfter(now.plus(LATENESS)) && !pastDeadline(y, now.plus(LATENESS))
                        && !keyHeld(line, y, now) && !keyHeld(line, y, now.plus(LATENESS))
                        && !run.ownerDownAt(y.owner(), now))
                .sorted(order).toList();
        if (waiting.isEmpty()) {
            return null;
        }
        // a call that joined just now (not yet settled) may already head the line: its units count too (seed 50060:
        // a MANUAL call of cost 2 joined 140 ms before, ahead of the SCHEDULED call of cost 1 the check took as
        // the head, and rightly held the line until two units fit)
        Call head = waiting.get(0);
        int cost = line.stream().filter(y -> !y.enqueued().isAfter(now) && y.leftWaiting() != null
                        && y.leftWaiting().isAfter(now) && !y.state().equals("EXPIRED")
                        && (!plan.strict() || order.compare(y, head) <= 0))
                .mapToInt(Call::cost).max().orElse(head.cost());
        if (dueAt(run, k, lineLog, now, cost).isAfter(now)
                || parent != null && dueAt(run, parent, log(run.names[parent]), now, cost).isAfter(now)) {
            return null;
        }
        return head;
    }

    /** The calls of a line that were in it around {@code t}, and its last sends before: for reading a finding. */
    private static String around(List<Call> line, List<Send> log, Instant t) {
        StringBuilder out = new StringBuilder();
        for (Call c : line) {
            if (c.enqueued().isBefore(t.plusSeconds(1)) && (c.leftWaiting() == null
                    || c.leftWaiting().isAfter(t.minusSeconds(1)))) {
                out.append("\n    call ").append(c.id()).append(" rank ").append(c.rank()).append(" cost ")
                        .append(c.cost()).append(" joined ").append(c.enqueued()).append(", ").append(c.state())
                        .append(c.granted() != null ? " granted " + c.granted() : "")
                        .append(c.done() != null ? " ended " + c.done() : "")
                        .append(c.deadline() != null ? " deadline " + c.deadline() : "")
                        .append(c.concurrencyKey() != null ? " key " + c.concurrencyKey() : "");
            }
        }
        List<Send> before = log.stream().filter(s -> s.sentAt().isBefore(t.plusSeconds(1))).toList();
        before.stream().skip(Math.max(0, before.size() - 8)).forEach(s -> out.append("\n    send ").append(s.seq())
                .append(" of call ").append(s.callId()).append(" at ").append(s.sentAt()).append(" slot ")
                .append(s.slotAt()));
        return out.toString();
    }

    /** One limit's send log, in order, as the database holds it now (its pruned units as {@link #asKept} reads them). */
    static List<Send> sendsOf(GateDatabase db, String limit) throws SQLException {
        List<Send> out = new ArrayList<>();
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT call_id, sent_at, slot_at, seq FROM gate_send WHERE limit_name = ? ORDER BY seq")) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long seq = rs.getLong("seq");
                    Instant sent = at(rs, "sent_at");
                    // the units the retention pruned below the oldest kept: read as sent when it was (asKept)
                    for (long pruned = out.isEmpty() ? 1 : seq; pruned < seq; pruned++) {
                        out.add(new Send(-1, -pruned, sent, sent, pruned));
                    }
                    out.add(new Send(-1, rs.getLong("call_id"), sent, at(rs, "slot_at"), seq));
                }
            }
        }
        return out;
    }

    /** The limit's rules as the vendor states them, its main rule's calls as re-paced at {@code t}. */
    static List<HistoryVendor.Rule> rulesAt(HistoryRun run, int l, Instant t) {
        List<HistoryVendor.Rule> rules = new ArrayList<>(run.vendorRules(run.history.limits().get(l)));
        rules.set(0, rules.get(0).withCalls(run.callsAt(l, t)));
        return rules;
    }

    /** When, by the oracle's reading of the rules, a call of {@code cost} may go on the limit at {@code t}. */
    static Instant dueAt(HistoryRun run, int l, List<Send> log, Instant t, int cost) {
        LimitPlan plan = run.history.limits().get(l);
        return HistoryOracle.dueAt(at -> slowestAt(run, l, at), plan.marginMs(), plan.minIntervalMs(),
                asKept(run, l, log, t), t, cost);
    }

    /**
     * The log as the gate may read it at {@code t}: where a rule was learned late (the operator's RULE, after the
     * retention had pruned what the declared window no longer needed), each unit pruned then reads as sent when the
     * oldest unit kept was (the documented reading of a unit retention pruned: never room by default).
     */
    static List<Send> asKept(HistoryRun run, int l, List<Send> log, Instant t) {
        Act learned = run.acts.stream().filter(a -> a.done() && a.step().kind() == History.OperatorKind.RULE
                && a.step().limit() == l && a.started().isBefore(t)).findFirst().orElse(null);
        if (learned == null) {
            return log;
        }
        LimitPlan plan = run.history.limits().get(l);
        Instant cutoff = learned.started().minusMillis(Math.max(plan.windowMs(), plan.minIntervalMs()));
        List<Send> before = log.stream().filter(s -> s.sentAt().isBefore(learned.started())).toList();
        if (before.isEmpty()) {
            return log;
        }
        Send newest = before.get(before.size() - 1);
        Instant oldestKept = before.stream().filter(s -> !s.sentAt().isBefore(cutoff) || s == newest)
                .map(Send::sentAt).findFirst().orElse(newest.sentAt());
        List<Send> read = new ArrayList<>();
        for (Send s : log) {
            boolean pruned = s.sentAt().isBefore(cutoff) && s != newest && s.sentAt().isBefore(learned.started());
            read.add(pruned ? new Send(s.limit(), s.callId(), oldestKept, oldestKept, s.seq()) : s);
        }
        read.sort(java.util.Comparator.comparing(Send::sentAt));
        return read;
    }

    /**
     * The rules at their slowest at {@code t}: an adaptive limit's main rule may have been cut to a tenth of its
     * calls (at least one), as its documentation bounds it; the lock-out checks wait for that.
     */
    private static List<HistoryVendor.Rule> slowestAt(HistoryRun run, int l, Instant t) {
        List<HistoryVendor.Rule> rules = rulesAt(run, l, t);
        if (run.history.limits().get(l).adaptive()) {
            rules = new ArrayList<>(rules);
            rules.set(0, rules.get(0).withCalls(Math.max(1, rules.get(0).calls() / 10)));
        }
        return rules;
    }

    /**
     * Every time the limit may have been held, at its longest: an operator's pause to its end (or a resume), a
     * cool-down to the longest the ladder and the limit's maxCoolDown allow, a vendor's count from its sending to
     * the longest it may hold (a count with units left holds once they are used).
     */
    private List<Hold> holdsAtMost(int l) {
        return holdsAtMost(l, l);
    }

    /**
     * As above, as they hold limit {@code seenBy}: a key's, as its parent is held by them (a slow-down or a count of
     * the account on a key's call holds the parent too, by the parent's own cool-down rules: the longer of the two
     * caps bounds it; seed 105010: a key capped at 1.4 s, its parent paused 2.7 s by its own maxCoolDown).
     */
    private List<Hold> holdsAtMost(int l, int seenBy) {
        List<LimitPlan> plans = List.of(run.history.limits().get(l), run.history.limits().get(seenBy));
        List<Hold> held = new ArrayList<>();
        List<Instant> resumes = run.acts.stream().filter(a -> a.step().limit() == l
                && a.step().kind() == History.OperatorKind.RESUME && a.done()).map(Act::ended).toList();
        for (Act act : List.copyOf(run.acts)) {
            if (act.step().limit() == l && act.step().kind() == History.OperatorKind.PAUSE && act.done()) {
                Instant until = act.pausedUntil();
                for (Instant resumed : resumes) {
                    if (resumed.isAfter(act.started()) && resumed.isBefore(until)) {
                        until = resumed;
                    }
                }
                held.add(new Hold(act.started(), until));
            }
        }
        long ladder = HistoryRun.LADDER.get(HistoryRun.LADDER.size() - 1).toMillis();
        for (HistoryRun.Reported r : List.copyOf(run.reported)) {
            if (r.limit() != l) {
                continue;
            }
            if (r.report().kind() == ReportKind.SLOW_DOWN) {
                long asked = r.report().retryAfterSeconds() == null ? 0 : r.report().retryAfterSeconds() * 1000L;
                long capped = plans.stream().mapToLong(p -> Math.min(asked, p.maxCoolDownMs())).max().orElseThrow();
                held.add(new Hold(r.sent(), r.at().plusMillis(Math.max(capped,
                        Math.max(ladder, HistoryRun.FLOOR.toMillis())))));
            } else if (r.report().kind() == ReportKind.COUNT) {
                long reset = r.report().resetSeconds() * 1000;
                held.add(new Hold(r.sent(), r.at().plusMillis(plans.stream().mapToLong(p -> Math.min(reset,
                        Math.min(p.maxCoolDownMs(), longestWindow(p)))).max().orElseThrow())));
            }
        }
        // a cool-down step's pause may outlast an earlier one: the holds overlap, each counted alone
        return held;
    }

    private static long longestWindow(LimitPlan plan) {
        return Math.max(plan.windowMs(), Math.max(plan.more() == null ? 0 : plan.more().windowMs(),
                plan.quota() == null ? 0 : plan.quota().blockMs()));
    }

    /**
     * Whether the gate's own sends explain a count of 0 reported by {@code call} ({@link dev.gate.rules.VendorCount}'s
     * rule, from the send log): every rule it could be of held its calls of the gate's own units, up to the call's.
     */
    private boolean explained(String line, int l, Call call, Integer quota) {
        LimitPlan plan = run.history.limits().get(l);
        // its last unit, by time and number: a limit removed and made anew numbers its units from 1 again (seed
        // 96060: the sends before the removal, numbered past the call's, read as after it)
        Send last = log(line).stream().filter(s -> s.callId() == call.id())
                .max(java.util.Comparator.comparing(Send::sentAt).thenComparingLong(Send::seq)).orElse(null);
        if (last == null) {
            return false;
        }
        boolean any = false;
        for (HistoryVendor.Rule w : windows(line, l)) {
            int calls = calls(l, w, call.done());
            if (quota != null && calls != quota) {
                continue;
            }
            any = true;
            Instant from = w.aligned() ? w.block(call.done())[0].minusMillis(plan.marginMs())
                    : call.done().minusMillis(w.ms() + plan.marginMs());
            long own = log(line).stream().filter(s -> (s.sentAt().isBefore(last.sentAt())
                    || s.sentAt().equals(last.sentAt()) && s.seq() <= last.seq()) && !s.sentAt().isBefore(from)).count();
            if (own < calls) {
                return false;
            }
        }
        return any;
    }

    private static boolean keyHeld(List<Call> calls, Call y, Instant t) {
        if (y.concurrencyKey() == null) {
            return false;
        }
        for (Call z : calls) {
            if (z != y && y.concurrencyKey().equals(z.concurrencyKey()) && z.granted() != null
                    && !z.granted().isAfter(t.plus(SLACK)) && (z.done() == null || z.done().isAfter(t.minus(SLACK)))) {
                return true;
            }
        }
        return false;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) < 0 ? a : b;
    }
}
