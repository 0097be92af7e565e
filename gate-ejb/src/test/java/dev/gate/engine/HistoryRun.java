package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallEndedException;
import dev.gate.api.CallOptions;
import dev.gate.api.CallState;
import dev.gate.api.DeadlineException;
import dev.gate.api.GateBusyException;
import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.api.GateTimeoutException;
import dev.gate.api.InvalidRequestException;
import dev.gate.api.KeyedLimitException;
import dev.gate.api.LineFullException;
import dev.gate.api.SubmissionKeyReusedException;
import dev.gate.api.UnknownLimitException;
import dev.gate.api.LimitSpec;
import dev.gate.api.Permit;
import dev.gate.domain.CallRow;
import dev.gate.engine.History.Cancel;
import dev.gate.engine.History.Join;
import dev.gate.engine.History.LimitPlan;
import dev.gate.engine.History.OperatorStep;
import dev.gate.engine.History.Report;
import dev.gate.engine.History.Sleep;
import dev.gate.engine.History.Step;
import dev.gate.engine.History.Try;
import dev.gate.rules.Pace;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One run of a {@link History} on two gate copies sharing one database: the limits declared under fresh names, the
 * programs and the operator at once, each program on copy a or b; what each caller was told, what the vendor received
 * (on the host's clock, which is the database's) and what the operator did, with when. Then the line drains (every
 * call ends) and each limit is probed: once every hold has ended by the rules, a try must be granted.
 */
final class HistoryRun {

    private static final AtomicInteger RUNS = new AtomicInteger();
    static final Duration MAX_WAIT = Duration.ofSeconds(6);
    static final Duration HTTP_LEASE = Duration.ofSeconds(2);
    /** An instance's calls' lease (its heartbeat renews it): a killed copy's calls end within it. */
    static final Duration EJB_LEASE = Duration.ofSeconds(3);
    static final Duration FLOOR = Duration.ofMillis(300);
    static final List<Duration> LADDER = List.of(Duration.ofMillis(300), Duration.ofMillis(600));
    /** How long an operator tries again a removal refused for the limit's live calls. */
    static final Duration REMOVAL_TRIES = Duration.ofSeconds(3);

    /**
     * What a caller heard. A refusal by its reason: an unknown limit, a bad request (INVALID), a full line, a key the
     * limit does not take (KEYED), a submission key used for another limit (KEY_REUSED); FAILED is the gate's own
     * failure (GateFailedException, or an exception the gate did not mean to throw): always a finding.
     */
    enum Answer {
        GRANTED, CONSUMED, JOINED, SHARED_OUTCOME, SAME_CALL, NOT_NOW, UNKNOWN_LIMIT, INVALID, LINE_FULL, KEYED,
        KEY_REUSED, FAILED, DEADLINE, TIMED_OUT, ENDED, PAUSED, RECORDED, REPORT_REFUSED, ABANDONED,
        /** Not the gate's: another client of the vendor's account used some of it. */
        ELSEWHERE
    }

    record Told(int program, int step, int limit, Long callId, Answer answer, Instant at, String detail) {
        @Override
        public String toString() {
            return "program " + program + " step " + step + " (L" + limit + "): " + answer
                    + (callId == null ? "" : " call " + callId) + (detail == null ? "" : " (" + detail + ")") + " at "
                    + at;
        }
    }

    /** A report the gate took, with what it said: sent at {@code sent}, answered at {@code at}. */
    record Reported(int limit, String account, long callId, Report report, Instant sent, Instant at) {
    }

    /** A waiting call's position and estimated grant as its program read them (the database's clock). */
    record Estimated(int limit, long callId, dev.gate.domain.Estimate estimate) {
    }

    /** An operator's step as it ran: from when to when, and a pause's end. */
    record Act(OperatorStep step, Instant started, Instant ended, Instant pausedUntil, boolean done) {
    }

    /**
     * A fault made: from when to when, and the instance it struck (killed, or its link cut); {@code dead}: when a
     * killed copy's last session had closed (its instance lock gone: a grant pass it had under way could commit
     * until then), for a cut its start.
     */
    record Fault(History.OperatorKind kind, Instant from, Instant until, String struck, Instant dead) {

        /** While the fault, or the recovery after it, may hold a copy's callers (a recovery probe every 250 ms). */
        boolean covers(Instant t) {
            return !t.isBefore(from.minusMillis(200)) && t.isBefore(until.plusSeconds(4));
        }
    }

    /** When the last fault's recovery may end (as {@link Fault#covers} reads it); Instant.MIN with no fault. */
    Instant recoveredBy() {
        return faults.stream().map(f -> f.until().plusSeconds(4)).max(Instant::compareTo).orElse(Instant.MIN);
    }

    /** Whether a fault (or the recovery after it) was under way at {@code t}. */
    boolean faultAt(Instant t) {
        return faults.stream().anyMatch(f -> f.covers(t));
    }

    /** Whether the call of {@code owner} could not be granted at {@code t}: its instance killed, or cut off then. */
    boolean ownerDownAt(String owner, Instant t) {
        return faults.stream().anyMatch(f -> owner.equals(f.struck()) && (f.kind() == History.OperatorKind.KILL
                ? !t.isBefore(f.from()) : f.covers(t)));
    }

    /**
     * A copy of the gate, which the faults strike: it runs behind a proxy that can cut its database link, and it can be
     * killed (as a crash: its timers and listener stop, its calls stay as they are) and another started in its place.
     */
    interface Copy {
        Engine engine();

        String owner();

        void cut(Duration length) throws Exception;

        void kill();

        void startAgain();

        /**
         * The limit's send log as the retention leaves it once its margin (10 minutes) has passed: every send older
         * than the limit's longest declared window gone, but its newest.
         */
        void pruneSends(String limit) throws Exception;

        /** Whether {@code engine} is this copy's, the one now or one killed before it. */
        boolean made(Engine engine);
    }

    final History history;
    final String[] names;
    final Instant start;
    /** When the last program and the operator were done. */
    volatile Instant ended;
    final List<Told> told = Collections.synchronizedList(new ArrayList<>());
    final List<Reported> reported = Collections.synchronizedList(new ArrayList<>());
    final List<Act> acts = Collections.synchronizedList(new ArrayList<>());
    final List<Estimated> estimates = Collections.synchronizedList(new ArrayList<>());
    final List<String> refusedLimits = Collections.synchronizedList(new ArrayList<>());
    final List<String> broken = Collections.synchronizedList(new ArrayList<>());
    final List<Fault> faults = Collections.synchronizedList(new ArrayList<>());
    /** The vendor the programs call: its own accounts, rules and state, the judge of promise 1. */
    final HistoryVendor vendor = new HistoryVendor();
    /** Per limit, the main rule's calls as declared and each re-pace, with when it ran. */
    final List<List<Act>> repaced = new ArrayList<>();
    /** The calls joined, in order, with their limit: an operator's cancel takes one still waiting out of the line. */
    private final List<long[]> joined = Collections.synchronizedList(new ArrayList<>());
    /** The threads of twins following a call they joined. */
    private final List<Thread> twins = Collections.synchronizedList(new ArrayList<>());
    /** The calls whose caller has heard how its wait ended. */
    private final java.util.Set<Long> heard = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Copy a;
    private final Copy b;
    private final int run;

    /** How the vendor's rules differ from what the gate is told (the identity: they agree). */
    private final java.util.function.UnaryOperator<List<HistoryVendor.Rule>> vendorTruth;

    HistoryRun(History history, Copy a, Copy b) {
        this(history, a, b, java.util.function.UnaryOperator.identity());
    }

    /** A run whose vendor's accounts differ from the limits the gate is given: a gate wrong about its vendor. */
    HistoryRun(History history, Copy a, Copy b,
               java.util.function.UnaryOperator<List<HistoryVendor.Rule>> vendorTruth) {
        this.vendorTruth = vendorTruth;
        this.history = history;
        this.a = a;
        this.b = b;
        this.run = RUNS.incrementAndGet();
        this.names = new String[history.limits().size()];
        for (int i = 0; i < names.length; i++) {
            names[i] = "h" + run + "-" + i;
            repaced.add(Collections.synchronizedList(new ArrayList<>()));
        }
        this.start = Instant.now();
    }

    /** Runs the history to its end: every program done, the operator done. */
    HistoryRun run() throws InterruptedException {
        for (int i = 0; i < names.length; i++) {
            LimitPlan plan = history.limits().get(i);
            if (!plan.keyed()) { // a keyed limit's keys open their accounts inside their parent's at their first call
                vendor.account(account(i, null), vendorTruth.apply(vendorRules(plan)), null);
            }
        }
        for (int i = 0; i < names.length; i++) {
            try {
                final int limit = i; // a rule the operator learns late is not declared yet
                boolean late = history.operator().stream().anyMatch(o -> o.kind() == History.OperatorKind.RULE
                        && o.limit() == limit);
                a.engine().limits().put(names[i], late ? spec(history.limits().get(i)).withMoreRules(List.of())
                        : spec(history.limits().get(i)), "history");
            } catch (GateException e) {
                refusedLimits.add("L" + i + ": " + e.getMessage()); // e.g. a zone the database does not know
            }
        }
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < history.programs().size(); p++) {
            int program = p;
            threads.add(new Thread(() -> program(program), names[0] + "-p" + p));
        }
        threads.add(new Thread(this::operator, names[0] + "-operator"));
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(60_000);
            if (t.isAlive()) {
                broken.add(t.getName() + " did not finish within a minute");
                t.interrupt();
            }
        }
        for (Thread t : List.copyOf(twins)) {
            t.join(30_000);
            if (t.isAlive()) {
                broken.add(t.getName() + " did not hear its call's end within 30 s");
                t.interrupt();
            }
        }
        ended = Instant.now();
        return this;
    }

    /** The other copy than the one that made {@code copy}: where a program goes when its copy is paused. */
    private Engine other(Engine copy) {
        return (a.made(copy) ? b : a).engine();
    }

    /** The vendor's account a call of limit {@code l} (and key, or null) is made on. */
    static String account(int l, String key) {
        return "L" + l + (key == null ? "" : "/" + key);
    }

    /** The vendor's account of a call, opened (a key's inside its parent's, with the limit's rules) at its first call. */
    private String openAccount(int l, String key) {
        if (key != null) {
            vendor.account(account(l, key), vendorRules(history.limits().get(l)),
                    vendor.account(account(parentOf(l), null)));
        }
        return account(l, key);
    }

    /** The limit a limit's keys are under: its plan's, or L0 for a plain limit the operator makes keyed; else null. */
    Integer parentOf(int l) {
        LimitPlan plan = history.limits().get(l);
        return plan.keyed() ? plan.keyedUnder() : changesKind(l) ? Integer.valueOf(0) : null;
    }

    /** Whether the operator's plan changes the limit's kind. */
    boolean changesKind(int l) {
        return history.operator().stream().anyMatch(o -> o.kind() == History.OperatorKind.KIND && o.limit() == l);
    }

    /** Whether the limit is keyed at some time of the history (by its plan, or made so). */
    boolean everKeyed(int l) {
        return history.limits().get(l).keyed() || changesKind(l);
    }

    /** Whether some limit's keys are under this one at some time of the history. */
    boolean everParent(int l) {
        for (int m = 0; m < names.length; m++) {
            if (everKeyed(m) && Integer.valueOf(l).equals(parentOf(m))) {
                return true;
            }
        }
        return false;
    }

    /** Whether the limit is keyed as its programs know it now: its plan's kind, turned by each change done. */
    boolean keyedNow(int l) {
        boolean keyed = history.limits().get(l).keyed();
        for (Act act : List.copyOf(acts)) {
            if (act.done() && act.step().kind() == History.OperatorKind.KIND && act.step().limit() == l) {
                keyed = act.step().arg() == 1;
            }
        }
        return keyed;
    }

    /** When an operator's change started that made the limit keyed (null: none was made). */
    Instant madeKeyedFrom(int l) {
        return acts.stream().filter(a -> a.done() && a.step().kind() == History.OperatorKind.KIND
                && a.step().limit() == l && a.step().arg() == 1).map(Act::started).findFirst().orElse(null);
    }

    /** Whether the limit may have been keyed at {@code t}: by its plan before a change, or a change under way. */
    boolean mayBeKeyedAt(int l, Instant t) {
        boolean keyed = history.limits().get(l).keyed();
        for (Act act : List.copyOf(acts)) {
            if (act.step().kind() == History.OperatorKind.KIND && act.step().limit() == l
                    && act.started().isBefore(t.plusMillis(200))) {
                if (act.ended().plusMillis(200).isAfter(t)) {
                    return true; // under way: either kind
                }
                keyed = act.done() ? act.step().arg() == 1 : keyed;
            }
        }
        return keyed;
    }

    /** A step as its program makes it now: with a key where its limit is keyed (its plan's, or one of three), else none. */
    private Step asKnownNow(Step step, int s) {
        if (step instanceof Join j) {
            return new Join(j.limit(), keyNow(j.limit(), j.key(), s), j.callClass(), j.cost(), j.http(), j.deadlineMs(),
                    j.concurrencyKey(), j.dedupeKey(), j.sentTwice(), j.report());
        }
        if (step instanceof Try t) {
            return new Try(t.limit(), keyNow(t.limit(), t.key(), s), t.callClass(), t.cost(), t.consume(), t.report());
        }
        if (step instanceof Cancel c) {
            return new Cancel(c.limit(), keyNow(c.limit(), c.key(), s), c.callClass(), c.afterMs());
        }
        return step;
    }

    private String keyNow(int l, String planned, int s) {
        return !keyedNow(l) ? null : planned != null ? planned : "store-" + s % 3;
    }

    /** The vendor's own rules of a plain limit's account, as its documentation would state them. */
    List<HistoryVendor.Rule> vendorRules(LimitPlan plan) {
        List<HistoryVendor.Rule> rules = new ArrayList<>();
        rules.add(plan.alignedZone() == null ? HistoryVendor.Rule.sliding("main rule", plan.calls(), plan.windowMs())
                : HistoryVendor.Rule.blocks("main rule", plan.calls(), plan.windowMs(), ZoneId.of(plan.alignedZone()),
                LocalTime.MIDNIGHT));
        if (plan.more() != null) {
            rules.add(HistoryVendor.Rule.sliding("more rule", plan.more().calls(), plan.more().windowMs()));
        }
        if (plan.quota() != null) {
            rules.add(HistoryVendor.Rule.blocks("quota", plan.quota().calls(), plan.quota().blockMs(),
                    ZoneId.of(plan.quota().zone()), quotaAt(plan)));
        }
        return rules;
    }

    LimitSpec spec(LimitPlan plan) {
        // a keyed limit: each key a copy of its rules and options, under its parent (the vendor's whole account)
        if (!plan.keyed()) {
            return plainSpec(plan);
        }
        LimitSpec keyed = plainSpec(plan).withKeyed(true).withParent(names[plan.keyedUnder()]);
        return plan.maxKeys() == null ? keyed : keyed.withMaxKeys(plan.maxKeys());
    }

    /** The limit's rules and options, as a plain limit's. */
    private LimitSpec plainSpec(LimitPlan plan) {
        LimitSpec spec = LimitSpec.of(plan.calls(), Duration.ofMillis(plan.windowMs()))
                .withReceiptMargin(Duration.ofMillis(plan.marginMs())).withFairPrograms(plan.fair())
                .withCoolDown(FLOOR, LADDER, 3).withMaxCoolDown(Duration.ofMillis(plan.maxCoolDownMs()));
        if (plan.burst() > 0) {
            spec = spec.withBurst(plan.burst());
        }
        if (plan.aging()) {
            spec = spec.withAging(Duration.ofMillis(800), CallClass.MANUAL);
        }
        if (plan.alignedZone() != null) {
            spec = spec.withAligned(ZoneId.of(plan.alignedZone()), LocalTime.MIDNIGHT);
        }
        if (plan.line() != null) {
            spec = spec.withMaxWaiting(plan.line().maxWaiting(), plan.line().perProgram());
        }
        if (plan.minIntervalMs() > 0) {
            spec = spec.withMinInterval(Duration.ofMillis(plan.minIntervalMs()));
        }
        if (plan.adaptive()) {
            spec = spec.withAdaptiveRate(true);
        }
        List<LimitSpec.Rule> more = new ArrayList<>();
        if (plan.more() != null) {
            more.add(new LimitSpec.Rule(plan.more().calls(), Duration.ofMillis(plan.more().windowMs())));
        }
        if (plan.quota() != null) {
            more.add(new LimitSpec.Rule(plan.quota().calls(), Duration.ofMillis(plan.quota().blockMs()),
                    ZoneId.of(plan.quota().zone()), quotaAt(plan)));
        }
        return more.isEmpty() ? spec : spec.withMoreRules(more);
    }

    /**
     * The limit declared as the other kind, as the vendor's new plan has it: made keyed, its keys under L0 with its
     * rules (the vendor counts them, and its own account's calls, in L0's account from now); made plain, its rules and
     * options, in an account of its own.
     */
    private LimitSpec otherKind(int l, boolean keyed) {
        LimitPlan plan = history.limits().get(l);
        if (keyed) { // its own line's calls, as its keys', count in L0's account now
            if (vendor.account(account(l, null)) != null) {
                vendor.within(account(l, null), account(0, null));
            }
            return plainSpec(plan).withKeyed(true).withParent(names[0]);
        }
        vendor.account(account(l, null), vendorTruth.apply(vendorRules(plan)), null);
        return plainSpec(plan);
    }

    /** The quota's reset time: its zone's local time of the edge, as Java reads the zone. */
    LocalTime quotaAt(LimitPlan plan) {
        return quotaEdge(plan).atZone(ZoneId.of(plan.quota().zone())).toLocalTime();
    }

    Instant quotaEdge(LimitPlan plan) {
        return start.plusMillis(plan.quota().edgeAfterMs()).truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    }

    private void program(int p) {
        String program = "p" + p;
        List<Step> steps = history.programs().get(p);
        for (int s = 0; s < steps.size(); s++) {
            Engine copy = (p % 2 == 0 ? a : b).engine(); // after a kill, the copy started in its place
            try {
                Step step = asKnownNow(steps.get(s), s);
                if (step instanceof Sleep sleep) {
                    Thread.sleep(sleep.ms());
                } else if (step instanceof Join join && join.http()) {
                    http(copy, program, p, s, join);
                } else if (step instanceof Join join) {
                    ejb(copy, program, p, s, join);
                } else if (step instanceof History.Flood flood) {
                    flood(copy, program, p, s, flood);
                } else if (step instanceof Try tried) {
                    tryNow(copy, program, p, s, tried);
                } else if (step instanceof Cancel cancel) {
                    cancel(copy, program, p, s, cancel);
                } else if (step instanceof History.Elsewhere other) {
                    int of = keyedNow(other.limit()) ? parentOf(other.limit()) : other.limit(); // the whole account
                    HistoryVendor.Answer answer = vendor.elsewhere(account(of, null), other.units());
                    tell(p, s, of, null, Answer.ELSEWHERE, other.units() + " units: " + answer.status());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                broken.add("program " + p + " step " + s + " (" + steps.get(s) + ") failed: " + e);
            }
        }
    }

    private CallOptions options(String key, int cost, Long deadlineMs, String concurrencyKey, Duration lease) {
        CallOptions o = CallOptions.NONE.withCost(cost);
        if (key != null) {
            o = o.withLimitKey(key);
        }
        if (deadlineMs != null) {
            o = o.withDeadline(Duration.ofMillis(deadlineMs));
        }
        if (concurrencyKey != null) {
            o = o.withConcurrencyKey(concurrencyKey);
        }
        return lease == null ? o : o.withLease(lease);
    }

    private void ejb(Engine copy, String program, int p, int s, Join join) throws InterruptedException {
        String limit = names[join.limit()];
        Ticket ticket;
        try {
            ticket = copy.callers().join(limit, join.callClass(), program, options(join.key(), join.cost(),
                    join.deadlineMs(),
                    join.concurrencyKey(), join.report().kind() == History.ReportKind.LAPSE ? HTTP_LEASE : EJB_LEASE));
        } catch (GateException e) {
            refused(p, s, join.limit(), null, e);
            return;
        }
        joined.add(new long[] {join.limit(), ticket.callId()});
        Permit permit;
        try {
            permit = copy.callers().await(ticket, MAX_WAIT);
        } catch (GateException e) {
            refused(p, s, join.limit(), ticket.callId(), e);
            return;
        }
        tell(p, s, join.limit(), permit.callId(), Answer.GRANTED, null);
        report(copy, program, p, s, join.limit(), join.key(), permit.callId(), join.cost(), join.report(), false);
    }

    /**
     * An HTTP program's join; sent twice, its submission is sent again at once (its answer lost) and once more after
     * its call ended (a late retry, or a joiner's after the shared call ended): each time it finds its call.
     */
    private void http(Engine first, String program, int p, int s, Join join) throws InterruptedException {
        Long id = httpOnce(first, program, p, s, join);
        if (id == null || !join.sentTwice() || !removals(join.limit()).isEmpty()) {
            return; // a removed limit's calls (and keys) go with it: a key sent after that names nothing
        }
        String key = "r" + run + "-p" + p + "-s" + s;
        CallOptions options = options(join.key(), join.cost(), join.deadlineMs(), join.concurrencyKey(), HTTP_LEASE);
        sendAgain(first, program, p, s, join, options, key, id, " (after it ended)", "");
    }

    /** A program's backlog: each copy of the join sent at once (a submission key of its own), followed to its end. */
    private void flood(Engine copy, String program, int p, int s, History.Flood flood) throws InterruptedException {
        List<Thread> sent = new ArrayList<>();
        for (int i = 0; i < flood.calls(); i++) {
            String own = "-f" + i;
            Thread one = new Thread(() -> {
                try {
                    httpOnce(copy, program, p, s, flood.join(), own);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    broken.add("program " + p + " step " + s + " (" + flood + ") failed: " + e);
                }
            }, names[0] + "-p" + p + own);
            one.start();
            sent.add(one);
        }
        for (Thread t : sent) {
            t.join();
        }
    }

    /** The join as sent and followed to its end; its call's id (null: refused). */
    private Long httpOnce(Engine first, String program, int p, int s, Join join) throws InterruptedException {
        return httpOnce(first, program, p, s, join, "");
    }

    /** As above, its submission key ending in {@code own} (one of a flood's). */
    private Long httpOnce(Engine first, String program, int p, int s, Join join, String own)
            throws InterruptedException {
        Engine copy = first;
        String limit = names[join.limit()];
        String key = "r" + run + "-p" + p + "-s" + s + own;
        CallOptions options = options(join.key(), join.cost(), join.deadlineMs(), join.concurrencyKey(), HTTP_LEASE);
        ProgramCalls.Submitted submitted;
        try {
            try {
                submitted = copy.programs().submit(program, limit, join.callClass(), options, join.dedupeKey(), key,
                        true);
            } catch (GatePausedException | GateBusyException e) {
                if (copy != first) {
                    throw e;
                }
                copy = other(first); // the answer may be lost with the call made: sent again with its key, to the other
                submitted = copy.programs().submit(program, limit, join.callClass(), options, join.dedupeKey(), key,
                        true);
            }
            if (join.sentTwice()) { // its answer was lost: sent again with its key
                ProgramCalls.Submitted again = copy.programs().submit(program, limit, join.callClass(), options,
                        join.dedupeKey(), key, true);
                tell(p, s, join.limit(), again.call().id(), Answer.SAME_CALL, "first answer call "
                        + submitted.call().id() + ", repeated " + again.repeated());
            }
        } catch (GateException e) {
            refused(p, s, join.limit(), null, e);
            return null;
        }
        long id = submitted.call().id();
        joined.add(new long[] {join.limit(), id});
        if (join.dedupeKey() != null && !submitted.joined()) {
            twin(copy, program, p, s, join, options, key + "-twin");
        }
        if (submitted.joined()) {
            tell(p, s, join.limit(), id, Answer.JOINED, null);
            sharedOutcome(copy, program, p, s, join.limit(), id);
            return id;
        }
        CallRow row = submitted.call();
        long until = System.nanoTime() + MAX_WAIT.toNanos();
        try {
            if (row.state() == CallState.WAITING) { // the program reads its call's position and estimate once
                try {
                    copy.programs().estimate(id).ifPresent(e -> estimates.add(new Estimated(join.limit(), id, e)));
                } catch (GatePausedException | GateBusyException e) {
                    // its copy paused: no estimate read
                }
            }
            while (row.state() == CallState.WAITING) {
                if (System.nanoTime() - until >= 0) {
                    boolean cancelled = copy.programs().cancel(program, id);
                    tell(p, s, join.limit(), id, cancelled ? Answer.TIMED_OUT : Answer.ENDED,
                            cancelled ? "cancelled by its program" : "not waiting when cancelled");
                    if (!cancelled) {
                        row = copy.programs().own(program, id).orElse(null);
                        if (row != null && row.state() == CallState.GRANTED) {
                            break;
                        }
                    }
                    return id;
                }
                Thread.sleep(100);
                try {
                    copy.programs().renew(program, id);
                    row = copy.programs().own(program, id).orElse(null);
                } catch (GatePausedException | GateBusyException e) {
                    if (copy != first) {
                        throw e;
                    }
                    copy = other(first); // its copy is paused: the program asks the other
                    continue;
                }
                if (row == null) {
                    tell(p, s, join.limit(), id, Answer.ENDED, "gone");
                    return id;
                }
            }
        } catch (GateException e) {
            refused(p, s, join.limit(), id, e);
            return id;
        }
        if (row.state() != CallState.GRANTED) {
            tell(p, s, join.limit(), id, Answer.ENDED, String.valueOf(row.state()));
            return id;
        }
        tell(p, s, join.limit(), id, Answer.GRANTED, null);
        report(copy, program, p, s, join.limit(), join.key(), id, join.cost(), join.report(), true);
        return id;
    }

    /**
     * Another instance of the program submits the same work (its dedupe key) while the call lives, through the other
     * copy: it joins the call and follows it to its end (on a thread of its own; the run waits for it). Were the call
     * gone already, its new call is taken back.
     */
    private void twin(Engine first, String program, int p, int s, Join join, CallOptions options, String key) {
        Engine copy = other(first);
        ProgramCalls.Submitted twin;
        try {
            twin = copy.programs().submit(program, names[join.limit()], join.callClass(), options, join.dedupeKey(),
                    key, true);
        } catch (GateException e) {
            refused(p, s, join.limit(), null, e, "a twin: ");
            return;
        }
        long id = twin.call().id();
        if (!twin.joined()) {
            try {
                if (copy.programs().cancel(program, id)) {
                    tell(p, s, join.limit(), id, Answer.TIMED_OUT, "a twin's new call, cancelled by its program");
                } else {
                    tell(p, s, join.limit(), id, Answer.ABANDONED, String.valueOf(copy.programs().abandon(program,
                            id)));
                }
            } catch (GateException e) {
                refused(p, s, join.limit(), id, e);
            }
            return;
        }
        tell(p, s, join.limit(), id, Answer.JOINED, "a twin");
        if (join.sentTwice()) { // its answer lost: sent again with its key, and again once the call ended
            sendAgain(copy, program, p, s, join, options, key, id, "", "a twin: ");
        }
        Thread follower = new Thread(() -> {
            try {
                sharedOutcome(copy, program, p, s, join.limit(), id);
                if (join.sentTwice() && removals(join.limit()).isEmpty()) {
                    sendAgain(copy, program, p, s, join, options, key, id, " (after it ended)", "a twin: ");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, names[0] + "-p" + p + "-twin");
        twins.add(follower);
        follower.start();
    }

    /**
     * A submission sent again with its key (its answer lost, or a late retry): it must find the call it made, or
     * joined (a twin's: defect 1 of issue 52). {@code who} leads a twin's answers.
     */
    private void sendAgain(Engine copy, String program, int p, int s, Join join, CallOptions options, String key,
                           long first, String when, String who) {
        for (Engine to : List.of(copy, other(copy))) { // its copy paused by a fault: sent to the other
            try {
                ProgramCalls.Submitted again = to.programs().submit(program, names[join.limit()], join.callClass(),
                        options, join.dedupeKey(), key, true);
                tell(p, s, join.limit(), again.call().id(), Answer.SAME_CALL, "first answer call " + first
                        + ", repeated " + again.repeated() + when + (who.isEmpty() ? "" : ", " + who));
                return;
            } catch (GatePausedException | GateBusyException e) {
                if (to != copy) {
                    refused(p, s, join.limit(), first, e, who);
                }
            } catch (GateException e) {
                refused(p, s, join.limit(), first, e, who);
                return;
            }
        }
    }

    /** A dedupe joiner polls the call it joined until it ends; what it last saw is what it was told. */
    private void sharedOutcome(Engine first, String program, int p, int s, int limit, long id)
            throws InterruptedException {
        Engine copy = first;
        long until = System.nanoTime() + MAX_WAIT.plusSeconds(4).toNanos();
        while (System.nanoTime() - until < 0) {
            try {
                Optional<CallRow> row = copy.programs().visible(program, id);
                if (row.isPresent() && row.get().state() != CallState.WAITING
                        && row.get().state() != CallState.GRANTED) {
                    tell(p, s, limit, id, Answer.SHARED_OUTCOME, row.get().state() + " "
                            + row.get().outcomeStatus());
                    return;
                }
            } catch (GatePausedException | GateBusyException e) {
                if (copy != first) {
                    refused(p, s, limit, id, e);
                    return;
                }
                copy = other(first); // its copy is paused: the program asks the other
            } catch (GateException e) {
                refused(p, s, limit, id, e);
                return;
            }
            Thread.sleep(150);
        }
    }

    /**
     * A consume at an odd step goes as a program's over HTTP does, with its key (Idempotency-Key), and is sent again
     * with it (its answer lost): one consumption, one row; at an even step, as an EJB's, without one (no row).
     */
    static boolean consumedWithItsKey(Try tried, int step) {
        return tried.consume() && step % 2 == 1;
    }

    /**
     * A try or a consume without a key at every fourth step goes three at once, as a service's requests arriving
     * together do: the first is decided, the two that come while it runs are decided together (GroupTrying), each told
     * its own answer and, granted, sent to the vendor (a try's grant then reported, each by its own thread).
     */
    static boolean triesThatMeet(Try tried, int step) {
        return step % 4 == 0;
    }

    /** A consume with its key, sent again with it: the same consumption, found again, nothing sent twice. */
    private void consumeWithItsKey(Engine first, String program, int p, int s, Try tried) {
        Engine copy = first;
        String limit = names[tried.limit()];
        String key = "r" + run + "-p" + p + "-s" + s;
        CallOptions options = options(tried.key(), tried.cost(), null, null, null);
        ProgramCalls.Tried consumed;
        try {
            try {
                consumed = copy.programs().tryNow(program, limit, tried.callClass(), options, key, true);
            } catch (GatePausedException | GateBusyException e) {
                if (copy != first) {
                    throw e;
                }
                copy = other(first); // the answer may be lost with the consumption made: sent again, to the other
                consumed = copy.programs().tryNow(program, limit, tried.callClass(), options, key, true);
            }
        } catch (GateException e) {
            refused(p, s, tried.limit(), null, e);
            return;
        }
        if (!consumed.attempt().isGranted()) {
            tell(p, s, tried.limit(), null, Answer.NOT_NOW,
                    "retry after " + consumed.attempt().retryAfter().toMillis() + " ms");
            return;
        }
        long id = consumed.attempt().permit().callId();
        vendor.request(openAccount(tried.limit(), tried.key()), id, tried.cost());
        tell(p, s, tried.limit(), id, Answer.CONSUMED, "with its key");
        ProgramCalls.Tried again;
        try {
            again = copy.programs().tryNow(program, limit, tried.callClass(), options, key, true);
        } catch (GatePausedException | GateBusyException e) {
            return; // its copy paused meanwhile: the resend has no answer to judge
        } catch (GateException e) {
            refused(p, s, tried.limit(), null, e);
            return;
        }
        Long second = again.attempt().isGranted() ? again.attempt().permit().callId() : null;
        tell(p, s, tried.limit(), second, Answer.SAME_CALL, "first answer call " + id + ", repeated "
                + again.repeated());
    }

    private void tryNow(Engine copy, String program, int p, int s, Try tried) {
        if (consumedWithItsKey(tried, s)) {
            consumeWithItsKey(copy, program, p, s, tried);
            return;
        }
        if (triesThatMeet(tried, s)) {
            List<Thread> others = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                Thread other = new Thread(() -> tryOnce(copy, program, p, s, tried), names[0] + "-p" + p + "-met" + i);
                other.start();
                others.add(other);
            }
            tryOnce(copy, program, p, s, tried);
            for (Thread other : others) {
                try {
                    other.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            return;
        }
        tryOnce(copy, program, p, s, tried);
    }

    /** One try or consume of a step, its answer told. */
    private void tryOnce(Engine copy, String program, int p, int s, Try tried) {
        Attempt attempt;
        try {
            attempt = tried.consume()
                    ? copy.callers().tryConsume(names[tried.limit()], tried.callClass(), program,
                    options(tried.key(), tried.cost(), null, null, null))
                    : copy.callers().tryNow(names[tried.limit()], tried.callClass(), program,
                    options(tried.key(), tried.cost(), null, null, EJB_LEASE));
        } catch (GateException e) {
            refused(p, s, tried.limit(), null, e);
            return;
        }
        if (!attempt.isGranted()) {
            tell(p, s, tried.limit(), null, Answer.NOT_NOW, "retry after " + attempt.retryAfter().toMillis() + " ms");
            return;
        }
        long id = attempt.permit().callId();
        if (tried.consume()) { // the request itself, served as it is granted
            vendor.request(openAccount(tried.limit(), tried.key()), id, tried.cost());
            tell(p, s, tried.limit(), id, Answer.CONSUMED, null);
            return;
        }
        tell(p, s, tried.limit(), id, Answer.GRANTED, "a try");
        report(copy, program, p, s, tried.limit(), tried.key(), id, tried.cost(), tried.report(), false);
    }

    private void cancel(Engine copy, String program, int p, int s, Cancel cancel) {
        try {
            Ticket ticket = copy.callers().join(names[cancel.limit()], cancel.callClass(), program,
                    options(cancel.key(), 1, null, null, EJB_LEASE));
            joined.add(new long[] {cancel.limit(), ticket.callId()});
            try {
                Permit permit = copy.callers().await(ticket, Duration.ofMillis(cancel.afterMs()));
                tell(p, s, cancel.limit(), permit.callId(), Answer.GRANTED, null);
                report(copy, program, p, s, cancel.limit(), cancel.key(), permit.callId(), 1, Report.OK, false);
            } catch (GateException e) {
                refused(p, s, cancel.limit(), ticket.callId(), e);
            }
        } catch (GateException e) {
            refused(p, s, cancel.limit(), null, e);
        }
    }

    /**
     * The vendor call with the grant (unless given up), then the report: what the vendor answered, as the program
     * reads it ({@code planned} says how: a 429 with or without its Retry-After, a 200 with or without the count).
     */
    private void report(Engine copy, String program, int p, int s, int limit, String key, long id, int cost,
                        Report planned, boolean http) {
        Report report = planned;
        String account = openAccount(limit, key);
        if (planned.kind() != History.ReportKind.ABANDON) {
            HistoryVendor.Answer answer = vendor.request(account, id, cost);
            report = said(planned, answer);
        }
        Instant sent = Instant.now();
        try {
            switch (report.kind()) {
                case OK -> complete(copy, program, id, 200, null, null, null, null, http);
                case SLOW_DOWN -> complete(copy, program, id, 429, report.retryAfterSeconds(), null, null, null, http);
                case COUNT -> complete(copy, program, id, 200, null, report.remaining(), report.resetSeconds(),
                        report.quota(), http);
                case ABANDON -> {
                    boolean given = http ? copy.programs().abandon(program, id)
                            : copy.callers().abandon(new Permit(id, names[limit], CallClass.SCHEDULED, Instant.EPOCH,
                            Instant.EPOCH));
                    tell(p, s, limit, id, Answer.ABANDONED, String.valueOf(given));
                    return;
                }
                case LAPSE -> {
                    return; // nobody reports: the lease runs out
                }
            }
            reported.add(new Reported(limit, account, id, report, sent, Instant.now()));
            tell(p, s, limit, id, Answer.RECORDED, report.toString());
        } catch (GateException | RuntimeException e) {
            tell(p, s, limit, id, Answer.REPORT_REFUSED, e.toString());
        }
    }

    /** What a program reports of the vendor's answer: its 429 (with its Retry-After unless the plan reads none), or
     * its 200 (with the count where the plan reads it, its quota where the plan names one). */
    private static Report said(Report planned, HistoryVendor.Answer answer) {
        return switch (planned.kind()) {
            case ABANDON, LAPSE -> planned;
            default -> answer.refused()
                    ? new Report(History.ReportKind.SLOW_DOWN, planned.kind() == History.ReportKind.SLOW_DOWN
                    && planned.retryAfterSeconds() == null ? null : answer.retryAfterSeconds(), null, null, null)
                    : planned.kind() == History.ReportKind.COUNT
                    ? new Report(History.ReportKind.COUNT, null, answer.remaining(), answer.resetSeconds(),
                    planned.quota() == null ? null : answer.quota())
                    : planned.kind() == History.ReportKind.ACCOUNT_COUNT
                    ? new Report(History.ReportKind.COUNT, null, answer.accountRemaining(),
                    answer.accountResetSeconds(), answer.accountQuota())
                    : Report.OK;
        };
    }

    private void complete(Engine copy, String program, long id, int status, Integer retryAfter, Integer remaining,
                          Long reset, Integer quota, boolean http) throws GateException {
        if (http) {
            boolean recorded;
            try {
                recorded = copy.programs().outcome(program, id, status, retryAfter, remaining, reset, quota);
            } catch (GatePausedException | GateBusyException e) {
                // its copy is paused: the program sends its report again to the other (the same outcome twice is
                // taken once)
                recorded = other(copy).programs().outcome(program, id, status, retryAfter, remaining, reset, quota);
            }
            if (!recorded) {
                throw new GateException("the outcome found no granted call");
            }
        } else {
            copy.callers().complete(id, program, status, retryAfter, remaining, reset, quota);
        }
    }

    private void refused(int p, int s, int limit, Long id, GateException e) {
        refused(p, s, limit, id, e, "");
    }

    /** As above, its detail led by {@code who} (a twin's: its step's call is not its). */
    private void refused(int p, int s, int limit, Long id, GateException e, String who) {
        Answer answer = e instanceof DeadlineException ? Answer.DEADLINE
                : e instanceof GateTimeoutException ? Answer.TIMED_OUT
                : e instanceof CallEndedException ? Answer.ENDED
                : e instanceof GatePausedException || e instanceof GateBusyException ? Answer.PAUSED
                : e instanceof UnknownLimitException ? Answer.UNKNOWN_LIMIT
                : e instanceof InvalidRequestException ? Answer.INVALID
                : e instanceof LineFullException ? Answer.LINE_FULL
                : e instanceof KeyedLimitException ? Answer.KEYED
                : e instanceof SubmissionKeyReusedException ? Answer.KEY_REUSED
                : Answer.FAILED; // GateFailedException, or a GateException of no kind: the gate's own failure
        Long call = e instanceof GateTimeoutException t ? Long.valueOf(t.callId()) : id;
        tell(p, s, limit, call, answer, who + e.getClass().getSimpleName() + ": " + e.getMessage());
    }

    private void tell(int p, int s, int limit, Long id, Answer answer, String detail) {
        told.add(new Told(p, s, limit, id, answer, Instant.now(), detail));
        if (id != null) {
            heard.add(id);
        }
    }

    private void operator() {
        for (OperatorStep step : history.operator()) {
            try {
                long wait = Duration.between(Instant.now(), start.plusMillis(step.atMs())).toMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
                String limit = names[step.limit()];
                LimitPlan plan = history.limits().get(step.limit());
                Instant started = Instant.now();
                Instant until = null;
                switch (step.kind()) {
                    case PAUSE -> until = a.engine().operators().pause(limit, Duration.ofMillis(step.arg()), "ops");
                    case RESUME -> b.engine().operators().resume(limit, "ops");
                    case REPACE -> rePace(step.limit(), (int) step.arg(),
                            () -> a.engine().limits().rePace(limit, Pace.of((int) step.arg(), plan.windowMs()), "ops"));
                    case REDECLARE -> rePace(step.limit(), plan.calls(),
                            () -> b.engine().limits().put(limit, spec(plan), "ops"));
                    case KIND -> a.engine().limits().put(limit, otherKind(step.limit(), step.arg() == 1), "ops");
                    case RULE -> { // learned late: the log by then kept only what the declared window needs
                        a.pruneSends(limit);
                        rePace(step.limit(), plan.calls(), () -> b.engine().limits().put(limit, spec(plan), "ops"));
                    }
                    case REMOVE -> { // refused while the limit has live calls: the operator tries again for 3 s
                        long giveUp = System.nanoTime() + REMOVAL_TRIES.toNanos();
                        while (!a.engine().limits().remove(limit, "ops").removed()) {
                            if (System.nanoTime() - giveUp > 0) {
                                throw new GateException("live calls: not removed"); // refused, nothing changed
                            }
                            Thread.sleep(100);
                        }
                    }
                    case CANCEL -> { // the call joined last of those whose callers still wait
                        Long last = null;
                        synchronized (joined) {
                            for (long[] j : joined) {
                                if (j[0] == step.limit() && !heard.contains(j[1])) {
                                    last = j[1];
                                }
                            }
                        }
                        if (last == null || !b.engine().operators().cancel(limit, last, "ops")) {
                            throw new GateException("no call waiting to cancel"); // nothing changed
                        }
                    }
                    case DRAIN -> a.engine().operators().drain("p" + step.arg(), limit, "ops");
                    case CUT -> {
                        Copy struck = step.copy() == 0 ? a : b;
                        String cut = struck.owner();
                        struck.cut(Duration.ofMillis(step.arg()));
                        faults.add(new Fault(step.kind(), started, Instant.now(), cut, started));
                    }
                    case KILL -> {
                        Copy struck = step.copy() == 0 ? a : b;
                        String killed = struck.owner();
                        struck.kill();
                        Instant dead = Instant.now();
                        Thread.sleep(step.arg());
                        struck.startAgain();
                        faults.add(new Fault(step.kind(), started, Instant.now(), killed, dead));
                    }
                }
                Act act = new Act(step, started, Instant.now(), until, true);
                acts.add(act);
                if (step.kind() == History.OperatorKind.REPACE || step.kind() == History.OperatorKind.REDECLARE
                        || step.kind() == History.OperatorKind.RULE) {
                    repaced.get(step.limit()).add(act);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (GateException | IllegalArgumentException e) { // refused (or its copy paused): nothing changed
                acts.add(new Act(step, Instant.now(), Instant.now(), null, false));
            } catch (Exception e) {
                broken.add("the operator's " + step + " failed: " + e);
            }
        }
    }

    /** A change of the gate's limit that any step of the gate's own may throw. */
    private interface Change {
        void run() throws Exception;
    }

    /**
     * The operator follows the vendor's new plan for a limit's main rule: a higher one once the vendor has it, a lower
     * one before the vendor's takes effect (the gate is never looser than the vendor).
     */
    private void rePace(int limit, int calls, Change gate) throws Exception {
        String account = account(limit, null);
        boolean higher = calls > vendor.account(account).rules.get(0).calls();
        if (higher) {
            vendor.rePlan(account, calls);
        }
        gate.run(); // refused: the gate keeps the stricter plan
        if (!higher) {
            vendor.rePlan(account, calls);
        }
    }

    /** When {@code limit} was removed (with its history), in order. */
    List<Instant> removals(int limit) {
        return acts.stream().filter(x -> x.done() && x.step().limit() == limit
                && x.step().kind() == History.OperatorKind.REMOVE).map(Act::ended).sorted().toList();
    }

    /** Whether {@code limit} is removed at the end (no re-declaration after its last removal). */
    boolean removedAtTheEnd(int limit) {
        List<Instant> removed = removals(limit);
        if (removed.isEmpty()) {
            return false;
        }
        Instant last = removed.get(removed.size() - 1);
        return acts.stream().noneMatch(x -> x.done() && x.step().limit() == limit
                && x.step().kind() == History.OperatorKind.REDECLARE && x.started().isAfter(last));
    }

    /**
     * Whether {@code limit} may have been absent at {@code t}: its declaration refused, or removed before then and
     * not declared again for certain (a re-declaration still under way may not have committed).
     */
    boolean absentAt(int limit, Instant t) {
        return absentAt(limit, t, t);
    }

    /**
     * Whether the limit may have been absent at some moment from {@code from} to {@code to} (a step that began before
     * its limit was declared again may have met its absence, and be told of it after: seed 105016, a join told the
     * limit was unknown just after an operator's removal and declaration).
     */
    boolean absentAt(int limit, Instant from, Instant to) {
        if (refusedLimits.stream().anyMatch(r -> r.startsWith("L" + limit + ":"))) {
            return true;
        }
        for (Act removal : List.copyOf(acts)) {
            if (!removal.done() || removal.step().limit() != limit || removal.step().kind() != History.OperatorKind.REMOVE
                    || removal.started().isAfter(to)) {
                continue;
            }
            boolean madeAgain = acts.stream().anyMatch(x -> x.done() && x.step().limit() == limit
                    && x.step().kind() == History.OperatorKind.REDECLARE && x.started().isAfter(removal.ended())
                    && x.ended().isBefore(from));
            if (!madeAgain) {
                return true;
            }
        }
        return false;
    }

    /** The fewest calls the main rule may have had at some moment from {@code from} to {@code to}. */
    int fewestCalls(int limit, Instant from, Instant to) {
        int calls = history.limits().get(limit).calls();
        int fewest = Integer.MAX_VALUE;
        for (Act act : List.copyOf(repaced.get(limit))) {
            int after = act.step().kind() == History.OperatorKind.REPACE ? (int) act.step().arg()
                    : history.limits().get(limit).calls();
            if (act.ended().isBefore(from)) {
                calls = after; // in force before the span
            } else if (!act.started().isAfter(to)) {
                fewest = Math.min(fewest, after); // under way or done within it
            }
        }
        return Math.min(fewest, calls);
    }

    /** How long before and after an operator's change the checks read either rule (the host's and database's clocks). */
    static final Duration SETTLING = Duration.ofMillis(50);

    /** The main rule's calls in force at {@code t}, and the looser of two when a change was under way then. */
    int callsAt(int limit, Instant t) {
        int calls = history.limits().get(limit).calls();
        for (Act act : repaced.get(limit)) {
            int after = act.step().kind() == History.OperatorKind.REPACE ? (int) act.step().arg()
                    : history.limits().get(limit).calls();
            if (t.isAfter(act.ended().plus(SETTLING))) {
                calls = after;
            } else if (t.isAfter(act.started().minus(SETTLING))) {
                calls = Math.max(calls, after);
            }
        }
        return calls;
    }
}
