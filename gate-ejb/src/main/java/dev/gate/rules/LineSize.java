package dev.gate.rules;

/**
 * How long a limit's line may grow: at most {@code maxWaiting} calls waiting in it (in each key's line, for a keyed
 * limit), at most {@code maxWaitingPerProgram} of them one program's (null: up to {@code maxWaiting}), and, for a
 * keyed limit, at most {@code maxKeys} keys open at once. A join past any of them is refused, never queued: no
 * program's flood (a schedule enqueued during a cool-down, a loop gone wrong) can make the shared line unbounded.
 * The caps hold to within the joins that run at the same moment.
 */
public record LineSize(int maxWaiting, Integer maxWaitingPerProgram, int maxKeys) {

    public static final int DEFAULT_MAX_WAITING = 10_000;
    public static final int DEFAULT_MAX_KEYS = 100_000;

    /** The defaults: 10,000 waiting, a program up to all of them, 100,000 keys. */
    public static final LineSize DEFAULT = new LineSize(DEFAULT_MAX_WAITING, null, DEFAULT_MAX_KEYS);

    public LineSize {
        if (maxWaiting < 1) {
            throw new IllegalArgumentException("maxWaiting must be at least 1, was " + maxWaiting);
        }
        if (maxWaitingPerProgram != null && (maxWaitingPerProgram < 1 || maxWaitingPerProgram > maxWaiting)) {
            throw new IllegalArgumentException("maxWaitingPerProgram must be 1 to maxWaiting (" + maxWaiting
                    + "), was " + maxWaitingPerProgram);
        }
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be at least 1, was " + maxKeys);
        }
    }

    /** The most calls one program may have waiting. */
    public int perProgram() {
        return maxWaitingPerProgram == null ? maxWaiting : maxWaitingPerProgram;
    }

    /** Which cap a join meets, given the line's waiting calls and the program's; null: it fits. */
    public Cap capMet(long waiting, long programWaiting) {
        if (waiting >= maxWaiting) {
            return Cap.LINE;
        }
        return programWaiting >= perProgram() ? Cap.PROGRAM : null;
    }

    /** Which cap a join met. */
    public enum Cap {
        LINE("its line holds maxWaiting calls"),
        PROGRAM("the program's waiting calls in it reach maxWaitingPerProgram"),
        KEYS("its open keys reach maxKeys");

        private final String why;

        Cap(String why) {
            this.why = why;
        }

        public String why() {
            return why;
        }
    }
}
