package dev.gate.engine;

import dev.gate.api.CallClass;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A random history for the promise checker ({@link RandomHistoriesTest}): the limits it declares, what each program
 * does in turn, and what the operator does and when. Replayable: limits are named when the history runs (each run
 * its own names), times are offsets from its start. Prints as a readable sequence.
 */
record History(long seed, List<LimitPlan> limits, List<List<Step>> programs, List<OperatorStep> operator) {

    /**
     * A limit as declared: its main rule, options, and at most one more rule; or a keyed limit whose keys each have
     * its rule, under the parent limit {@code keyedUnder} (an index, earlier in the list; null: not keyed).
     */
    record LimitPlan(int calls, long windowMs, long marginMs, int burst, boolean fair, boolean aging,
                     long maxCoolDownMs, MoreRule more, String alignedZone, Quota quota, Integer keyedUnder,
                     LineBound line, long minIntervalMs, boolean adaptive, Integer maxKeys) {

        /** A limit with none of the line bound, minimum spacing or adaptive rate. */
        LimitPlan(int calls, long windowMs, long marginMs, int burst, boolean fair, boolean aging, long maxCoolDownMs,
                  MoreRule more, String alignedZone, Quota quota, Integer keyedUnder) {
            this(calls, windowMs, marginMs, burst, fair, aging, maxCoolDownMs, more, alignedZone, quota, keyedUnder,
                    null, 0, false, null);
        }

        /** Only strict order when neither programs take turns nor the starvation guard lifts a class. */
        boolean strict() {
            return !fair && !aging;
        }

        boolean keyed() {
            return keyedUnder != null;
        }

        @Override
        public String toString() {
            return (keyed() ? "keyed under L" + keyedUnder + ", each key " : "") + calls + " per " + windowMs + " ms"
                    + (alignedZone == null ? "" : " on blocks in " + alignedZone)
                    + (more == null ? "" : ", and " + more) + (quota == null ? "" : ", and " + quota)
                    + ", margin " + marginMs + " ms" + (burst > 0 ? ", burst " + burst : "") + (fair ? ", fair" : "")
                    + (aging ? ", aging" : "") + ", max cool-down " + maxCoolDownMs + " ms"
                    + (line == null ? "" : ", " + line) + (minIntervalMs > 0 ? ", spaced " + minIntervalMs + " ms" : "")
                    + (adaptive ? ", adaptive" : "") + (maxKeys == null ? "" : ", at most " + maxKeys + " keys open");
        }
    }

    /** How long the line may grow: at most {@code maxWaiting} calls waiting, {@code perProgram} of one program's. */
    record LineBound(int maxWaiting, Integer perProgram) {
        @Override
        public String toString() {
            return "at most " + maxWaiting + " waiting" + (perProgram == null ? "" : ", " + perProgram + " a program");
        }
    }

    /** A sliding rule beside the main one. */
    record MoreRule(int calls, long windowMs) {
        @Override
        public String toString() {
            return calls + " per " + windowMs + " ms";
        }
    }

    /**
     * A quota on the vendor's calendar (blocks of an hour, six hours or a day in {@code zone}) whose block ends
     * {@code edgeAfterMs} after the history starts, as Java reads the zone: the edge falls inside the history.
     */
    record Quota(int calls, long blockMs, String zone, long edgeAfterMs) {
        @Override
        public String toString() {
            return calls + " per block of " + blockMs / 60_000 + " min in " + zone + ", an edge at +" + edgeAfterMs
                    + " ms";
        }
    }

    /**
     * How a program reports its grant: ACCOUNT_COUNT reports the count of the vendor's whole account (on a key's call:
     * its parent's, with its quota), as a vendor that reports only the account-wide count would have it read.
     */
    enum ReportKind { OK, SLOW_DOWN, COUNT, ACCOUNT_COUNT, ABANDON, LAPSE }

    /** A report: a 429's Retry-After (null: none), or the vendor's count (remaining, reset, quota or null). */
    record Report(ReportKind kind, Integer retryAfterSeconds, Integer remaining, Long resetSeconds, Integer quota) {
        static final Report OK = new Report(ReportKind.OK, null, null, null, null);

        @Override
        public String toString() {
            return switch (kind) {
                case OK -> "200";
                case SLOW_DOWN -> "429" + (retryAfterSeconds == null ? "" : " Retry-After " + retryAfterSeconds);
                case COUNT -> "200 with '" + remaining + " left for " + resetSeconds + " s'"
                        + (quota == null ? "" : " of " + quota);
                case ACCOUNT_COUNT -> "200 with the account's count";
                case ABANDON -> "abandon";
                case LAPSE -> "no report (the lease lapses)";
            };
        }
    }

    /** One thing a program does. */
    sealed interface Step permits Join, Try, Cancel, Sleep, Elsewhere, Flood {
    }

    /** Joins and waits: as an EJB caller, or over the program path (submission keys, dedupe, own leases). */
    record Join(int limit, String key, CallClass callClass, int cost, boolean http, Long deadlineMs,
                String concurrencyKey, String dedupeKey, boolean sentTwice, Report report) implements Step {
        @Override
        public String toString() {
            return (http ? "HTTP " : "EJB ") + "join L" + limit + (key == null ? "" : " key " + key) + " " + callClass
                    + (cost > 1 ? " cost " + cost : "")
                    + (deadlineMs == null ? "" : " deadline " + deadlineMs + " ms")
                    + (concurrencyKey == null ? "" : " concurrency key " + concurrencyKey)
                    + (dedupeKey == null ? "" : " dedupe key " + dedupeKey) + (sentTwice ? " (sent twice)" : "")
                    + ", then " + report;
        }
    }

    /**
     * Try now; a grant is reported. {@code consume}: a consuming try (the call is the request itself), ended at its
     * grant: its request served there (a receipt), nothing reported.
     */
    record Try(int limit, String key, CallClass callClass, int cost, boolean consume, Report report) implements Step {
        @Override
        public String toString() {
            return (consume ? "consume L" : "try L") + limit + (key == null ? "" : " key " + key) + " " + callClass
                    + (cost > 1 ? " cost " + cost : "") + (consume ? "" : ", then " + report);
        }
    }

    /** Joins and takes the call out of the line after a while, if it is still waiting. */
    record Cancel(int limit, String key, CallClass callClass, long afterMs) implements Step {
        @Override
        public String toString() {
            return "join L" + limit + (key == null ? "" : " key " + key) + " " + callClass + " and cancel after "
                    + afterMs + " ms";
        }
    }

    /** Another client of the vendor's account (a keyed limit's: its parent's) uses {@code units} of it. */
    record Elsewhere(int limit, int units) implements Step {
        @Override
        public String toString() {
            return "another client uses " + units + " of L" + limit + "'s account";
        }
    }

    /** A program's backlog: {@code calls} copies of one HTTP join sent at once, each followed to its end. */
    record Flood(Join join, int calls) implements Step {
        @Override
        public String toString() {
            return calls + " at once: " + join;
        }
    }

    record Sleep(long ms) implements Step {
        @Override
        public String toString() {
            return "sleep " + ms + " ms";
        }
    }

    /**
     * KIND: the limit's kind changed (a keyed limit made plain, a plain one made keyed under L0). RULE: the operator
     * learned the vendor's second rule late: the limit, declared first without it, is declared again with it.
     */
    enum OperatorKind { PAUSE, RESUME, REPACE, REDECLARE, REMOVE, CANCEL, DRAIN, CUT, KILL, KIND, RULE }

    /**
     * The operator's hand at {@code atMs} after the start: a pause of {@code arg} ms, a re-pace to {@code arg}, a
     * cancel of the call a program joined last, a drain of program {@code arg}'s waiting calls; or a fault that strikes
     * {@code copy} (0: copy a, which holds the limits' first declarations; 1: copy b): its database link cut for
     * {@code arg} ms, or the copy killed and a new one started {@code arg} ms later; or the limit's kind changed
     * ({@code arg} 0: made plain, 1: made keyed under L0).
     */
    record OperatorStep(long atMs, OperatorKind kind, int limit, long arg, int copy) {

        /** A step that strikes copy b, if a fault. */
        OperatorStep(long atMs, OperatorKind kind, int limit, long arg) {
            this(atMs, kind, limit, arg, 1);
        }

        String copyName() {
            return copy == 0 ? "a" : "b";
        }

        @Override
        public String toString() {
            return "+" + atMs + " ms: " + switch (kind) {
                case PAUSE -> "pause L" + limit + " for " + arg + " ms";
                case RESUME -> "resume L" + limit;
                case REPACE -> "re-pace L" + limit + " to " + arg + " calls";
                case REDECLARE -> "re-declare L" + limit;
                case REMOVE -> "remove L" + limit;
                case CANCEL -> "cancel the call last joined on L" + limit;
                case DRAIN -> "drain program " + arg + "'s calls of L" + limit;
                case CUT -> "cut copy " + copyName() + "'s database link for " + arg + " ms";
                case KILL -> "kill copy " + copyName() + ", start another " + arg + " ms later";
                case KIND -> arg == 0 ? "make L" + limit + " plain" : "make L" + limit + " keyed under L0";
                case RULE -> "add L" + limit + "'s second rule, learned late";
            };
        }
    }

    int steps() {
        return programs.stream().mapToInt(List::size).sum() + operator.size();
    }

    /** The same history without program {@code p}'s step {@code i}. */
    History withoutStep(int p, int i) {
        List<List<Step>> ps = new ArrayList<>();
        for (int q = 0; q < programs.size(); q++) {
            List<Step> steps = new ArrayList<>(programs.get(q));
            if (q == p) {
                steps.remove(i);
            }
            ps.add(steps);
        }
        return new History(seed, limits, ps, operator);
    }

    History withoutOperatorStep(int i) {
        List<OperatorStep> ops = new ArrayList<>(operator);
        ops.remove(i);
        return new History(seed, limits, programs, ops);
    }

    History withProgram(int p, List<Step> steps) {
        List<List<Step>> ps = new ArrayList<>(programs);
        ps.set(p, steps);
        return new History(seed, limits, ps, operator);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("history of seed " + seed + " (replay: -Dgate.history.seed=" + seed
                + "):\n");
        for (int i = 0; i < limits.size(); i++) {
            out.append("  L").append(i).append(": ").append(limits.get(i)).append('\n');
        }
        for (int p = 0; p < programs.size(); p++) {
            out.append("  program ").append(p).append(" (copy ").append(p % 2 == 0 ? "a" : "b").append("): ")
                    .append(programs.get(p).stream().map(Object::toString).collect(Collectors.joining("; ")))
                    .append('\n');
        }
        if (!operator.isEmpty()) {
            out.append("  operator: ").append(operator.stream().map(Object::toString)
                    .collect(Collectors.joining("; "))).append('\n');
        }
        return out.toString();
    }
}
