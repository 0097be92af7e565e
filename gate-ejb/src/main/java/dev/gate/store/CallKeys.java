package dev.gate.store;

/**
 * A submission's keys, each optional: a concurrency key (one call of it granted at a time), a dedupe key (equal
 * submissions share one live call) and a submission key (the program's own name for this one submission: a retry
 * of a submission whose answer was lost finds the call it made, and never makes a second).
 */
public record CallKeys(String concurrency, String dedupe, String submission) {

    public static final CallKeys NONE = new CallKeys(null, null, null);

    public static CallKeys of(String concurrency, String dedupe) {
        return new CallKeys(concurrency, dedupe, null);
    }
}
