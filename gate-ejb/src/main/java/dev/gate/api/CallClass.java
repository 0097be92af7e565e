package dev.gate.api;

/**
 * Who is waiting on a call, highest first. The next free slot goes to the highest class with a live waiting call;
 * inside a class, first come, first served.
 */
public enum CallClass {
    /** A person is waiting on it. */
    INTERACTIVE,
    /** Started by hand. */
    MANUAL,
    /** Regular snapshots on a timer. */
    SCHEDULED,
    /** A follow-up after a snapshot worked. */
    FOLLOW_UP,
    /** Old history: gets what is left. */
    BACKFILL;

    /** The rank stored in the line: 0 is the highest class. */
    public int rank() {
        return ordinal();
    }

    public static CallClass ofRank(int rank) {
        return values()[rank];
    }
}
