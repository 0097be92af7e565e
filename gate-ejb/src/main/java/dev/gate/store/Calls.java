package dev.gate.store;

/**
 * What is left of the class the calls' statements were split from (now {@link Joins}, {@link GroupJoins},
 * {@link LineRoom}, {@link CallReads}, {@link OwnedCalls} and {@link OperatorCancels}): {@link FreeSlot}, changed
 * elsewhere at the time of the split, still names {@code Calls.SubmissionKeyReused}. Delete this class once FreeSlot
 * names {@link dev.gate.store.SubmissionKeyReused} itself.
 */
final class Calls {

    private Calls() {
    }

    /**
     * The submission key error as FreeSlot throws it: a subclass, so every catch of
     * {@link dev.gate.store.SubmissionKeyReused} (a try's, a join's) still catches it.
     */
    static final class SubmissionKeyReused extends dev.gate.store.SubmissionKeyReused {
        private static final long serialVersionUID = 1L;

        SubmissionKeyReused(String key, String limit) {
            super(key, limit);
        }
    }
}
