package dev.gate.bench;

import dev.gate.dev.GateDatabase;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Scale figures, in process, each part on a fresh database (dropped at the end). Part a: one limit with 100 and with
 * 100,000 waiting calls: the join, a grant pass and the status reads at each length (targets: within 1.5x of the
 * short line; a status read within 50 ms). Part b: 10,000 limits with waiting calls and slots due all the time: the
 * slot loop's passes and how late each grant went against its slot. Prints a table per part and which figures meet
 * their targets.
 *
 * <p>{@code args[0]}: seconds per part (default 60): part a spends them on its measurements (the filling and vacuum
 * come on top), part b runs the slot loop that long. {@code args[1]}: part b's beat per limit in seconds (default
 * 60, so 10,000 limits offer 167 slots per second: what one gate copy's loop carries on a 2-core machine, where a
 * pass over 10,000 limits takes tens of seconds; 10 offers 1,000 per second). Database: {@code GATE_TEST_DB_URL}
 * (and user, password) as for the tests, else an embedded PostgreSQL.
 */
public final class ScaleFigures {

    private static final int SHORT_LINE = 100;
    private static final int LONG_LINE = 100_000;
    private static final double WITHIN = 1.5;
    private static final double STATUS_MS = 50;
    private static final int WARM_UP = 20;
    private static final int MOST_SAMPLES = 2_000;

    // Held, so the level set here stays: one INFO line per cancelled probe call would bury the figures.
    private static final Logger GATE_LOG = Logger.getLogger("dev.gate");

    private ScaleFigures() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 && !args[0].isBlank() ? Integer.parseInt(args[0]) : 60;
        int beatSeconds = args.length > 1 && !args[1].isBlank() ? Integer.parseInt(args[1]) : 60;
        GATE_LOG.setLevel(Level.WARNING);
        List<FigureTable.Verdict> verdicts = new ArrayList<>();
        List<GateDatabase> made = new ArrayList<>();
        try {
            FigureTable a = longLine(made, seconds);
            a.print();
            verdicts.addAll(a.verdicts());

            GateDatabase manyDb = GateDatabase.fresh("gate_scale_many");
            made.add(manyDb);
            FigureTable b = manyLimits(manyDb, seconds, Duration.ofSeconds(beatSeconds));
            b.print();
            verdicts.addAll(b.verdicts());

            System.out.println();
            System.out.println("targets:");
            for (FigureTable.Verdict v : verdicts) {
                System.out.printf("  %-5s %s (%s)%n", v.holds() ? "holds" : "FAILS", v.figure(), v.target());
            }
        } finally {
            for (GateDatabase db : made) {
                drop(db);
            }
            if (!made.isEmpty()) {
                made.get(0).server().stop();
            }
        }
    }

    private static FigureTable longLine(List<GateDatabase> made, int seconds) throws Exception {
        Duration perFigure = Duration.ofMillis(seconds * 1_000L / LongLine.Figure.values().length);
        Map<LongLine.Figure, Percentiles> shortTimes = new EnumMap<>(LongLine.Figure.class);
        Map<LongLine.Figure, Percentiles> longTimes = new EnumMap<>(LongLine.Figure.class);
        System.out.printf("part a: one limit with %,d and one with %,d waiting calls, each on a database of its own, "
                + "measured turn about, %d ms per figure%n", SHORT_LINE, LONG_LINE, perFigure.toMillis());
        try (LongLine shortLine = new LongLine("gate_scale_line_short", SHORT_LINE);
             LongLine longLine = new LongLine("gate_scale_line_long", LONG_LINE)) {
            made.add(shortLine.database());
            made.add(longLine.database());
            for (LongLine.Figure f : LongLine.Figure.values()) {
                List<Double> a = new ArrayList<>();
                List<Double> b = new ArrayList<>();
                for (int i = 0; i < WARM_UP; i++) { // the JIT, the pools, the statements' plans
                    shortLine.sample(f);
                    longLine.sample(f);
                }
                long until = System.nanoTime() + perFigure.toNanos();
                while (System.nanoTime() < until && a.size() < MOST_SAMPLES) {
                    a.add(shortLine.sample(f));
                    b.add(longLine.sample(f));
                }
                shortTimes.put(f, new Percentiles(a));
                longTimes.put(f, new Percentiles(b));
            }
            System.out.printf("(as read at the end: waiting %,d and %,d; position of the last call in line %,d and "
                            + "%,d)%n", shortLine.waitingNow(), longLine.waitingNow(), shortLine.positionSeen(),
                    longLine.positionSeen());
        }

        FigureTable t = new FigureTable("part a: one limit, " + SHORT_LINE + " vs " + String.format("%,d", LONG_LINE)
                + " waiting calls (samples per figure in brackets)",
                "figure", String.format("%,d waiting", SHORT_LINE), String.format("%,d waiting", LONG_LINE), "ratio");
        Row row = (figure, f, p, target) -> {
            Percentiles a = shortTimes.get(f);
            Percentiles b = longTimes.get(f);
            double ratio = b.at(p) / a.at(p);
            List<String> cells = List.of(figure + String.format(", p%.0f", p * 100), cell(a, p), cell(b, p),
                    String.format("%.2fx", ratio));
            switch (target) {
                case RATIO -> t.row(cells, "within " + WITHIN + "x", ratio <= WITHIN);
                case CEILING -> t.row(cells, "<= " + (int) STATUS_MS + " ms",
                        a.at(p) <= STATUS_MS && b.at(p) <= STATUS_MS);
                default -> t.row(cells, "-", null);
            }
        };
        String enqueue = "enqueue: the join transaction (Joins.join)";
        row.add(enqueue, LongLine.Figure.ENQUEUE, 0.50, Target.NONE);
        row.add(enqueue, LongLine.Figure.ENQUEUE, 0.99, Target.RATIO);
        String join = "join through the engine (ProgramCalls.submit: join and fast path in one transaction)";
        row.add(join, LongLine.Figure.JOIN, 0.50, Target.NONE);
        row.add(join, LongLine.Figure.JOIN, 0.99, Target.RATIO);
        String grant = "grant pass on a due slot (Granter.grantDue, 1 grant)";
        row.add(grant, LongLine.Figure.GRANT, 0.50, Target.RATIO);
        row.add(grant, LongLine.Figure.GRANT, 0.99, Target.NONE);
        String status = "limit status read (LimitControl.status: LineView.limit)";
        row.add(status, LongLine.Figure.STATUS, 0.50, Target.RATIO);
        row.add(status, LongLine.Figure.STATUS, 0.99, Target.CEILING);
        String position = "call status, last in line (ProgramCalls.estimate: Estimates.of)";
        row.add(position, LongLine.Figure.POSITION, 0.50, Target.RATIO);
        row.add(position, LongLine.Figure.POSITION, 0.99, Target.CEILING);
        return t;
    }

    /** How a row of part a is judged: against the short line (ratio), against the ceiling, or not at all. */
    private enum Target { RATIO, CEILING, NONE }

    @FunctionalInterface
    private interface Row {
        void add(String figure, LongLine.Figure f, double p, Target target);
    }

    private static String cell(Percentiles p, double at) {
        return FigureTable.ms(p.at(at)) + " (" + p.count() + ")";
    }

    private static FigureTable manyLimits(GateDatabase db, int seconds, Duration beat) throws Exception {
        System.out.printf("%npart b: %,d limits, each 1 call per %d s (%,.0f slots per second offered), slots spread "
                        + "over one beat, one gate copy, %d s%n", ManyLimits.LIMITS, beat.toSeconds(),
                ManyLimits.LIMITS / (double) beat.toSeconds(), seconds);
        ManyLimits.Run run = new ManyLimits(db, beat).run(Duration.ofSeconds(seconds));
        Percentiles lateness = new Percentiles(run.lateness());
        double beatMs = beat.toMillis();

        FigureTable t = new FigureTable(String.format("part b: %,d limits with waiting calls, 1 per %d s each, %s "
                        + "of slots", run.limits(), beat.toSeconds(), run.ran()), "figure", "value");
        t.row(List.of("grants on time: lateness against the slot (gate_send.sent_at - slot_at)",
                percentiles(lateness)), "max <= 1 beat (" + beat.toSeconds() + " s: Beat keeps every slot)",
                lateness.at(1.0) <= beatMs);
        double share = (double) run.grants() / run.slotsDue();
        t.row(List.of("grants made / slots due", String.format("%,d / %,d = %.1f%% (%,.0f per second)",
                        run.grants(), run.slotsDue(), 100 * share, run.grants() / (run.ran().toMillis() / 1e3))),
                "- (slots due in the pass still running at the stop are ahead of the loop, not lost)", null);
        t.row(List.of("a pass's first read (WaitingLines.withWaitingCalls), timed from outside",
                percentiles(run.waitingRead())), "-", null);
        // the loop no longer visits a limit that is not due; this is what visiting every one would cost a pass
        t.row(List.of("a grant transaction on a limit not due (Granter.grantDue), timed from outside",
                percentiles(run.notDueGrant()) + String.format("; x %,d limits = %s", run.limits(),
                        FigureTable.ms(run.notDueGrant().at(0.5) * run.limits()))), "-", null);
        t.row(List.of("limit status read among " + String.format("%,d", run.limits()) + " limits (LineView.limit)",
                percentiles(run.oneStatus())), "p99 <= " + (int) STATUS_MS + " ms",
                run.oneStatus().at(0.99) <= STATUS_MS);
        t.row(List.of("status of all " + String.format("%,d", run.limits()) + " limits (LineView.limits)",
                percentiles(run.allStatus())), "-", null);
        return t;
    }

    private static String percentiles(Percentiles p) {
        return String.format("p50 %s, p99 %s, max %s (n=%,d)", FigureTable.ms(p.at(0.5)), FigureTable.ms(p.at(0.99)),
                FigureTable.ms(p.at(1.0)), p.count());
    }

    /** The run's databases go with it; a server that cannot drop one says so and goes on. */
    private static void drop(GateDatabase db) {
        try (Connection c = db.server().connect("postgres"); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + db.name() + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("could not drop the database " + db.name() + ": " + e.getMessage());
        }
    }
}
