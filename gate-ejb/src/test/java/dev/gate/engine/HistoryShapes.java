package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.engine.History.Join;
import dev.gate.engine.History.LimitPlan;
import dev.gate.engine.History.OperatorKind;
import dev.gate.engine.History.OperatorStep;
import dev.gate.engine.History.Report;
import dev.gate.engine.History.ReportKind;
import dev.gate.engine.History.Sleep;
import dev.gate.engine.History.Step;
import dev.gate.engine.History.Try;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Histories shaped for what random ones rarely meet: the moments after a fault or a change where a defect of issue 52
 * would show, their rules, classes and timings drawn from a seed. They are run and judged as the random ones are (the
 * vendor judges promise 1; the oracle the refusals); nothing here knows what the gate should answer.
 * <ul>
 *   <li>{@code dead-copy}: a limit paused while copy b's callers join it; copy b is killed with its calls waiting and
 *   started again; the operator resumes; copy a's programs try, consume and join (on a line bound, or on the keys of a
 *   keyed limit under it) while the dead calls' leases still run (defect 4).</li>
 *   <li>{@code removed-anew}: a limit's window filled by one program, the limit removed and declared again at once,
 *   and another program calls it anew while the vendor still counts the first sends (defect 8).</li>
 *   <li>{@code parent-count}: another client of the vendor's account uses all of it but a unit; a key's call uses
 *   that unit and reports the account's count (nothing left); a try and a join follow on other keys (defect 2).</li>
 *   <li>{@code backlog-deadline}: one program's backlog of a class waits (programs taking turns, or not); another
 *   program's call of that class or another joins with a deadline a few gaps away (defect 3).</li>
 *   <li>{@code fresh-burst}: a limit with a burst allowance, fresh; programs try and consume at once, then join
 *   (defect 7).</li>
 *   <li>{@code costly-kind}: a call of a few units waits on a plain limit (its window is not empty); the operator makes
 *   the limit keyed under another, as the vendor's plan now counts it in the other's account; the other's programs
 *   then call it up to its rule (defect 5).</li>
 *   <li>{@code late-rule}: a limit sends within the vendor's longer rule, which the operator has not declared; once
 *   its older sends are past the retention of its short window, the operator declares the longer rule, and another
 *   program calls it (defect 6).</li>
 * </ul>
 */
final class HistoryShapes {

    static final List<String> NAMES = List.of("dead-copy", "removed-anew", "parent-count", "backlog-deadline",
            "fresh-burst", "costly-kind", "late-rule");

    private HistoryShapes() {
    }

    static History of(String shape, long seed) {
        Random r = new Random(seed);
        return switch (shape) {
            case "dead-copy" -> deadCopy(seed, r);
            case "removed-anew" -> removedAnew(seed, r);
            case "parent-count" -> parentCount(seed, r);
            case "backlog-deadline" -> backlogDeadline(seed, r);
            case "fresh-burst" -> freshBurst(seed, r);
            case "costly-kind" -> costlyKind(seed, r);
            case "late-rule" -> lateRule(seed, r);
            default -> throw new IllegalArgumentException("no shape " + shape + "; the shapes are " + NAMES);
        };
    }

    private static History deadCopy(long seed, Random r) {
        int calls = 2 + r.nextInt(4);
        long window = 1000 + 500L * r.nextInt(3);
        int burst = r.nextInt(3) == 0 ? 1 + r.nextInt(Math.min(2, calls)) : 0; // the free line's path for tries
        History.LineBound bound = r.nextBoolean() ? new History.LineBound(1 + r.nextInt(2), null) : null;
        List<LimitPlan> limits = new ArrayList<>();
        limits.add(new LimitPlan(calls, window, 150 + r.nextInt(100), burst, false, false, 2000, null, null, null,
                null, bound, 0, false, null));
        boolean keyed = r.nextInt(3) == 0; // copy a's programs call the keys of a limit under the one the dead wait on
        if (keyed) {
            limits.add(new LimitPlan(1 + r.nextInt(2), window, 150, 0, false, false, 2000, null, null, null, 0));
        }
        int survivor = keyed ? 1 : 0;
        List<List<Step>> programs = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            List<Step> steps = new ArrayList<>();
            if (p % 2 == 1) { // copy b's in-server callers: in the paused line when their copy dies
                steps.add(new Sleep(50 + r.nextInt(200)));
                steps.add(new Join(0, null, klass(r), 1, false, null, null, null, false, Report.OK));
            } else { // copy a's, after the resume, while the dead calls' leases run
                steps.add(new Sleep(1800 + r.nextInt(400)));
                for (int s = 0; s < 3; s++) {
                    String key = keyed ? "store-" + r.nextInt(3) : null;
                    steps.add(r.nextInt(3) == 0
                            ? new Join(survivor, key, klass(r), 1, r.nextBoolean(), null, null, null, false, Report.OK)
                            : new Try(survivor, key, klass(r), 1, r.nextBoolean(), Report.OK));
                    steps.add(new Sleep(100 + r.nextInt(300)));
                }
            }
            programs.add(steps);
        }
        List<OperatorStep> operator = List.of(
                new OperatorStep(0, OperatorKind.PAUSE, 0, 4000),
                new OperatorStep(600 + r.nextInt(200), OperatorKind.KILL, 0, 200 + r.nextInt(200), 1),
                new OperatorStep(1300 + r.nextInt(100), OperatorKind.RESUME, 0, 0));
        return new History(seed, limits, programs, operator);
    }

    private static History removedAnew(long seed, Random r) {
        int calls = 2 + r.nextInt(3);
        long window = 2000 + 1000L * r.nextInt(2);
        // a burst of all its calls: the limit sends a window's worth at once, and would again, made anew, if it forgot
        LimitPlan plan = new LimitPlan(calls, window, 150 + r.nextInt(100), calls, false, false, 2000, null, null, null,
                null);
        long filled = 500; // the window's calls granted and reported by then
        List<Step> first = new ArrayList<>();
        List<Step> again = new ArrayList<>();
        again.add(new Sleep(filled + 700));
        for (int i = 0; i < calls; i++) {
            first.add(new Join(0, null, klass(r), 1, r.nextBoolean(), null, null, null, false, Report.OK));
            again.add(r.nextBoolean() ? new Join(0, null, klass(r), 1, r.nextBoolean(), null, null, null, false,
                    Report.OK) : new Try(0, null, klass(r), 1, true, Report.OK));
        }
        List<OperatorStep> operator = List.of(new OperatorStep(filled, OperatorKind.REMOVE, 0, 0),
                new OperatorStep(filled + 200, OperatorKind.REDECLARE, 0, 0));
        return new History(seed, List.of(plan), List.of(first, again), operator);
    }

    private static History parentCount(long seed, Random r) {
        int parentCalls = 3 + r.nextInt(3);
        long window = 2000 + 1000L * r.nextInt(2);
        LimitPlan parent = new LimitPlan(parentCalls, window, 150, 0, false, false, 3000, null, null, null, null);
        LimitPlan keyed = new LimitPlan(1 + r.nextInt(2), window, 150, 0, false, false, 3000, null, null, null, 0);
        List<Step> counted = new ArrayList<>();
        counted.add(new History.Elsewhere(1, parentCalls - 1)); // all of the account but a unit
        counted.add(new Join(1, "store-0", klass(r), 1, r.nextBoolean(), null, null, null, false,
                new Report(ReportKind.ACCOUNT_COUNT, null, null, null, null)));
        List<Step> others = new ArrayList<>();
        others.add(new Sleep(600 + r.nextInt(300)));
        others.add(new Try(1, "store-" + (1 + r.nextInt(2)), klass(r), 1, r.nextBoolean(), Report.OK));
        others.add(new Sleep(100 + r.nextInt(200)));
        others.add(r.nextBoolean() ? new Join(1, "store-" + (1 + r.nextInt(2)), klass(r), 1, r.nextBoolean(), null,
                null, null, false, Report.OK) : new Join(0, null, klass(r), 1, r.nextBoolean(), null, null, null, false,
                Report.OK));
        return new History(seed, List.of(parent, keyed), List.of(counted, others), List.of());
    }

    private static History backlogDeadline(long seed, Random r) {
        int calls = 3 + r.nextInt(3);
        long window = 2000;
        boolean fair = r.nextInt(4) > 0;
        LimitPlan plan = new LimitPlan(calls, window, 150, 0, fair, false, 2000, null, null, null, null);
        CallClass backlog = CallClass.values()[1 + r.nextInt(3)];
        List<Step> worker = List.of(new History.Flood(new Join(0, null, backlog, 1, true, null, null, null, false,
                Report.OK), 6 + r.nextInt(7)));
        long gap = window / calls;
        List<Step> web = new ArrayList<>();
        web.add(new Sleep(300 + r.nextInt(300)));
        for (int i = 0; i < 2; i++) {
            CallClass klass = r.nextInt(3) == 0 ? CallClass.values()[r.nextInt(CallClass.values().length)] : backlog;
            web.add(new Join(0, null, klass, 1, r.nextBoolean(), 1500 + 2 * gap + r.nextInt(1500), null, null, false,
                    Report.OK));
        }
        return new History(seed, List.of(plan), List.of(worker, web), List.of());
    }

    private static History freshBurst(long seed, Random r) {
        int calls = 3 + r.nextInt(4);
        long window = 1000L * (1 + r.nextInt(3));
        LimitPlan plan = new LimitPlan(calls, window, 150 + r.nextInt(100), 2 + r.nextInt(calls - 1), false, false,
                2000, null, null, null, null);
        List<List<Step>> programs = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            List<Step> steps = new ArrayList<>();
            steps.add(new Sleep(p * (300 + r.nextInt(400))));
            for (int s = 0; s < 2; s++) {
                steps.add(new Try(0, null, klass(r), 1, r.nextBoolean(), Report.OK));
            }
            steps.add(new Join(0, null, klass(r), 1, r.nextBoolean(), null, null, null, false, Report.OK));
            programs.add(steps);
        }
        return new History(seed, List.of(plan), programs, List.of());
    }

    private static History costlyKind(long seed, Random r) {
        long window = 3000;
        int parentCalls = 4 + r.nextInt(2);
        LimitPlan parent = new LimitPlan(parentCalls, window, 150, 0, false, false, 3000, null, null, null, null);
        LimitPlan costly = new LimitPlan(3 + r.nextInt(2), window, 150, 0, false, false, 3000, null, null, null, null);
        int cost = costly.calls(); // more than the window has room for after the first unit: it waits
        List<Step> first = List.of(new Try(1, null, klass(r), 1, true, Report.OK),
                new Join(1, null, klass(r), cost, r.nextBoolean(), null, null, null, false, Report.OK));
        List<Step> then = new ArrayList<>();
        then.add(new Sleep(window + 300 + r.nextInt(300)));
        for (int i = 0; i < parentCalls; i++) {
            then.add(new Join(0, null, klass(r), 1, r.nextBoolean(), null, null, null, false, Report.OK));
        }
        List<OperatorStep> operator = List.of(new OperatorStep(500 + r.nextInt(500), OperatorKind.KIND, 1, 1));
        return new History(seed, List.of(parent, costly), List.of(first, then), operator);
    }

    private static History lateRule(long seed, Random r) {
        int calls = 3 + r.nextInt(2);
        long window = 1000;
        int first = calls + 1 + r.nextInt(2); // more than the short window holds, within the long one
        History.MoreRule longer = new History.MoreRule(first + 1 + r.nextInt(2), 8000);
        LimitPlan plan = new LimitPlan(calls, window, 150, 0, false, false, 2000, longer, null, null, null);
        List<Step> sending = new ArrayList<>();
        for (int i = 0; i < first; i++) {
            sending.add(new Join(0, null, klass(r), 1, r.nextBoolean(), null, null, null, false, Report.OK));
        }
        long sent = window * first / calls; // by then the first program's calls went, on the beat
        List<Step> then = new ArrayList<>();
        then.add(new Sleep(sent + 2600 + r.nextInt(300)));
        for (int i = 0; i < longer.calls(); i++) {
            then.add(r.nextBoolean() ? new Join(0, null, klass(r), 1, r.nextBoolean(), null, null, null, false,
                    Report.OK) : new Try(0, null, klass(r), 1, true, Report.OK));
        }
        List<OperatorStep> operator = List.of(new OperatorStep(sent + 2300, OperatorKind.RULE, 0, 0));
        return new History(seed, List.of(plan), List.of(sending, then), operator);
    }

    private static CallClass klass(Random r) {
        return CallClass.values()[r.nextInt(CallClass.values().length)];
    }
}
